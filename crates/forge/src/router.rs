//! Routes a repository to the client of its forge: one client per endpoint and credential.
//! The server's own clients live as long as the process, so connection pools, ETag caches and
//! probed capabilities are shared by every call made with the server's credentials; a
//! caller's token gets clients of its own, so nothing a forge told one credential (an ETag'd
//! answer, a review-feedback snapshot, a capability probe, a memo) is served to another.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use resolve_pr_core::RepoRef;

use crate::Result;
use crate::config::{Config, Endpoint};
use crate::credential::{Credential, CredentialKey};
use crate::{ClientOptions, Forge};

/// Clients kept for callers' tokens; the least recently used goes first. The server's own
/// clients are never evicted.
pub const TOKEN_CLIENTS: usize = 64;

/// What a client is cached by: its endpoint and whose credential it uses. A token appears
/// only as its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientKey {
    pub endpoint: String,
    pub credential: CredentialKey,
}

pub struct Forges {
    config: Config,
    options: ClientOptions,
    clients: Mutex<Clients>,
    token_clients: usize,
}

#[derive(Default)]
struct Clients {
    server: HashMap<String, Arc<dyn Forge>>,
    /// Clients of callers' tokens, each with when it was last handed out.
    tokens: HashMap<ClientKey, (Arc<dyn Forge>, u64)>,
    clock: u64,
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
            clients: Mutex::new(Clients::default()),
            token_clients: TOKEN_CLIENTS,
        }
    }

    /// These forges, keeping at most `limit` (at least one) clients of callers' tokens.
    pub fn with_token_client_limit(mut self, limit: usize) -> Self {
        self.token_clients = limit.max(1);
        self
    }

    /// Reads the config file and environment.
    pub fn from_environment() -> Result<Self> {
        Ok(Forges::new(Config::load()?))
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The client for the repository's forge, with the server's credentials. Fails with
    /// [`crate::Error::Config`] naming the host when it is not configured.
    pub fn for_repo(&self, repo: &RepoRef) -> Result<Arc<dyn Forge>> {
        self.for_repo_as(repo, &Credential::Server)
    }

    /// The client for the repository's forge, reaching it with `credential`. A caller's token
    /// goes to whatever forge the host resolves to, and replaces every token of the server's.
    pub fn for_repo_as(&self, repo: &RepoRef, credential: &Credential) -> Result<Arc<dyn Forge>> {
        let mut endpoint = match credential {
            Credential::Server => self.config.endpoint_for(repo.host().as_deref())?,
            Credential::Token(_) => self.config.endpoint_for_caller(repo.host().as_deref())?,
        };
        let key = ClientKey {
            endpoint: match &endpoint {
                Endpoint::GitHub(e) => format!("github {}", e.api_url),
                Endpoint::Forgejo(e) => format!("forgejo {}", e.api_url),
            },
            credential: credential.key(),
        };
        let mut options = self.options.clone();
        if let Credential::Token(secret) = credential {
            match &mut endpoint {
                Endpoint::GitHub(e) => {
                    e.token = Some(secret.clone());
                    e.token_vars = &[];
                }
                Endpoint::Forgejo(e) => e.token = Some(secret.clone()),
            }
            options.env = Arc::new(|_| None);
            options.gh_cli = false;
        }
        // A poisoned lock only means another thread panicked while inserting; the map is
        // still a valid cache.
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = clients.get(&key) {
            return Ok(client);
        }
        let client: Arc<dyn Forge> = match endpoint {
            Endpoint::GitHub(e) => Arc::new(crate::github::GitHub::with_options(e, options)?),
            Endpoint::Forgejo(e) => Arc::new(crate::forgejo::Forgejo::with_options(e, options)?),
        };
        clients.insert(key, client.clone(), self.token_clients);
        Ok(client)
    }

    /// The keys of the clients built so far, for tests: which credentials have clients.
    pub fn client_keys(&self) -> Vec<ClientKey> {
        let clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        let server = clients.server.keys().map(|endpoint| ClientKey {
            endpoint: endpoint.clone(),
            credential: CredentialKey::Server,
        });
        let mut keys: Vec<ClientKey> = server.chain(clients.tokens.keys().cloned()).collect();
        keys.sort_by(|a, b| (&a.endpoint, &a.credential).cmp(&(&b.endpoint, &b.credential)));
        keys
    }
}

impl Clients {
    fn get(&mut self, key: &ClientKey) -> Option<Arc<dyn Forge>> {
        if key.credential == CredentialKey::Server {
            return self.server.get(&key.endpoint).cloned();
        }
        self.clock += 1;
        let now = self.clock;
        self.tokens.get_mut(key).map(|(client, used)| {
            *used = now;
            client.clone()
        })
    }

    fn insert(&mut self, key: ClientKey, client: Arc<dyn Forge>, limit: usize) {
        if key.credential == CredentialKey::Server {
            self.server.insert(key.endpoint, client);
            return;
        }
        while self.tokens.len() >= limit {
            let Some(oldest) = self
                .tokens
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            self.tokens.remove(&oldest);
        }
        self.clock += 1;
        self.tokens.insert(key, (client, self.clock));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Secret;

    fn forges() -> Forges {
        let config = Config::from_parts(None, None, &|_| None).unwrap();
        let options = ClientOptions {
            env: Arc::new(|_| None),
            gh_cli: false,
            ..ClientOptions::default()
        };
        Forges::with_options(config, options).with_token_client_limit(2)
    }

    fn token(t: &str) -> Credential {
        Credential::Token(Secret::new(t))
    }

    #[test]
    fn token_clients_are_bounded_least_recently_used_first() {
        let forges = forges();
        let repo: RepoRef = "acme/widgets".parse().unwrap();
        let server = forges.for_repo(&repo).unwrap();
        let a = forges.for_repo_as(&repo, &token("a")).unwrap();
        let b = forges.for_repo_as(&repo, &token("b")).unwrap();
        assert!(!Arc::ptr_eq(&server, &a) && !Arc::ptr_eq(&a, &b));
        // `a` is used again, so `b` is the least recently used when `c` arrives.
        assert!(Arc::ptr_eq(
            &a,
            &forges.for_repo_as(&repo, &token("a")).unwrap()
        ));
        forges.for_repo_as(&repo, &token("c")).unwrap();
        let keys: Vec<CredentialKey> = forges
            .client_keys()
            .into_iter()
            .map(|k| k.credential)
            .collect();
        assert_eq!(keys.len(), 3, "{keys:?}");
        for kept in [Credential::Server, token("a"), token("c")] {
            assert!(keys.contains(&kept.key()), "{kept:?} in {keys:?}");
        }
        assert!(!keys.contains(&token("b").key()));
        // The server's client outlives any number of tokens.
        for t in ["d", "e", "f"] {
            forges.for_repo_as(&repo, &token(t)).unwrap();
        }
        assert!(Arc::ptr_eq(&server, &forges.for_repo(&repo).unwrap()));
        // `b` comes back as a new client.
        assert!(!Arc::ptr_eq(
            &b,
            &forges.for_repo_as(&repo, &token("b")).unwrap()
        ));
    }

    #[test]
    fn keys_do_not_show_tokens() {
        let forges = forges();
        let repo: RepoRef = "acme/widgets".parse().unwrap();
        forges.for_repo_as(&repo, &token("ghp_top_secret")).unwrap();
        let shown = format!("{:?}", forges.client_keys());
        assert!(shown.contains("Token(Fingerprint("), "{shown}");
        assert!(!shown.contains("ghp_top_secret"), "{shown}");
    }

    /// A caller's token says nothing about which forge a short reference means: with a
    /// Forgejo host configured and no GitHub token of the server's, the server's own calls go
    /// to Forgejo, but a caller's must name the host (or the operator sets a default), so a
    /// GitHub token is never sent to Forgejo.
    #[test]
    fn a_callers_short_reference_goes_nowhere_it_might_not_belong() {
        let env = |k: &str| (k == "FORGEJO_HOST").then(|| "https://codeberg.org".to_owned());
        let config = Config::from_parts(None, None, &env).unwrap();
        let options = ClientOptions {
            env: Arc::new(|_| None),
            gh_cli: false,
            ..ClientOptions::default()
        };
        let forges = Forges::with_options(config, options);
        let short: RepoRef = "acme/widgets".parse().unwrap();
        assert_eq!(
            forges.for_repo(&short).unwrap().kind(),
            crate::ForgeKind::Forgejo
        );
        let Err(e) = forges.for_repo_as(&short, &token("ghp_caller")) else {
            panic!("a caller's short reference was routed");
        };
        assert!(matches!(e, crate::Error::Config { .. }), "{e:?}");
        assert!(e.to_string().contains("github.com, codeberg.org"), "{e}");
        let named: RepoRef = "codeberg.org/acme/widgets".parse().unwrap();
        assert_eq!(
            forges.for_repo_as(&named, &token("c")).unwrap().kind(),
            crate::ForgeKind::Forgejo
        );
        let github: RepoRef = "github.com/acme/widgets".parse().unwrap();
        assert_eq!(
            forges.for_repo_as(&github, &token("c")).unwrap().kind(),
            crate::ForgeKind::GitHub
        );

        // A default host decides for callers too.
        let env = |k: &str| match k {
            "FORGEJO_HOST" => Some("https://codeberg.org".to_owned()),
            "RESOLVE_PR_DEFAULT_HOST" => Some("codeberg.org".to_owned()),
            _ => None,
        };
        let forges = Forges::with_options(
            Config::from_parts(None, None, &env).unwrap(),
            ClientOptions {
                env: Arc::new(|_| None),
                gh_cli: false,
                ..ClientOptions::default()
            },
        );
        assert_eq!(
            forges.for_repo_as(&short, &token("c")).unwrap().kind(),
            crate::ForgeKind::Forgejo
        );
    }
}
