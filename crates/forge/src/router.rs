//! Routes a repository to the client of its forge, one client per endpoint for the life of
//! the process, so connection pools, ETag caches and probed capabilities are shared.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use resolve_pr_core::RepoRef;

use crate::Result;
use crate::config::{Config, Endpoint};
use crate::{ClientOptions, Forge};

pub struct Forges {
    config: Config,
    options: ClientOptions,
    clients: Mutex<HashMap<String, Arc<dyn Forge>>>,
}

impl Forges {
    pub fn new(config: Config) -> Self {
        Forges::with_options(config, ClientOptions::default())
    }

    /// Clients built with these options (retry bounds, timeouts, token environment); for
    /// tests and embedders.
    pub fn with_options(config: Config, options: ClientOptions) -> Self {
        Forges {
            config,
            options,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Reads the config file and environment.
    pub fn from_environment() -> Result<Self> {
        Ok(Forges::new(Config::load()?))
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The client for the repository's forge. Fails with [`crate::Error::Config`] naming the host when
    /// it is not configured.
    pub fn for_repo(&self, repo: &RepoRef) -> Result<Arc<dyn Forge>> {
        let endpoint = self.config.endpoint_for(repo.host().as_deref())?;
        let key = match &endpoint {
            Endpoint::GitHub(e) => format!("github {}", e.api_url),
            Endpoint::Forgejo(e) => format!("forgejo {}", e.api_url),
        };
        // A poisoned lock only means another thread panicked while inserting; the map is
        // still a valid cache.
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = clients.get(&key) {
            return Ok(client.clone());
        }
        let client: Arc<dyn Forge> = match endpoint {
            Endpoint::GitHub(e) => Arc::new(crate::github::GitHub::with_options(
                e,
                self.options.clone(),
            )?),
            Endpoint::Forgejo(e) => Arc::new(crate::forgejo::Forgejo::with_options(
                e,
                self.options.clone(),
            )?),
        };
        clients.insert(key, client.clone());
        Ok(client)
    }
}
