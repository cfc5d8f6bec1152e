//! Which tools a server (or one CLI call) offers. Without `--toolsets` the default toolsets
//! are on and the agent turns the others on when it needs them (`on_demand`); `--toolsets`
//! names exactly the toolsets offered (`all` for every one, `default` for the default ones);
//! `--read-only` drops every tool that writes. A tool that is not offered is gone from the
//! listing *and* refused when called, so the listing never promises less than a call can do.

use std::collections::BTreeSet;

use resolve_pr_core::Error as ToolError;
use resolve_pr_tools::{ToolSpec, Toolset};
use serde_json::Value;

use crate::Error;
use resolve_pr_core::ErrorCode;

/// What the operator asked for on the command line or in the config file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Offer no tool whose `writes()` is true.
    pub read_only: bool,
    /// Offer exactly these toolsets (`all`, `default` stand for those sets); `None` offers
    /// the default toolsets and the others on demand.
    pub toolsets: Option<Vec<String>>,
}

/// The tools offered, and which of them are on now.
#[derive(Clone)]
pub struct Selection {
    /// Every tool this server may offer, in registry order.
    offered: Vec<ToolSpec>,
    /// The toolsets on now.
    on: BTreeSet<Toolset>,
    /// The tools of `on`, in registry order.
    enabled: Vec<ToolSpec>,
    /// The agent may turn the toolsets of `offered` on as it needs them.
    on_demand: bool,
    options: Options,
    /// The code tools were left out because the callers are on other machines.
    remote: bool,
}

impl Selection {
    /// Applies the options to the registry. An unknown toolset name is an error rather than an
    /// empty server: a typo in `--toolsets` should fail at startup, not look like a bug later.
    pub fn new(options: &Options) -> Result<Selection, Error> {
        let valid = || {
            Toolset::ALL
                .iter()
                .map(|t| t.as_str().to_owned())
                .chain(["all".to_owned(), "default".to_owned()])
                .collect()
        };
        let on: BTreeSet<Toolset> = match &options.toolsets {
            None => Toolset::ALL
                .into_iter()
                .filter(|t| t.on_by_default())
                .collect(),
            Some(given) => {
                let names: Vec<&str> = given
                    .iter()
                    .map(|s| s.trim())
                    .filter(|s| !s.is_empty())
                    .collect();
                if names.is_empty() {
                    return Err(Error::NoToolsets { valid: valid() });
                }
                let mut sets = BTreeSet::new();
                for name in names {
                    match name {
                        "all" => sets.extend(Toolset::ALL.into_iter().filter(|t| !t.hidden())),
                        "default" => {
                            sets.extend(Toolset::ALL.into_iter().filter(|t| t.on_by_default()))
                        }
                        _ => {
                            let Some(set) = Toolset::from_name(name) else {
                                return Err(Error::UnknownToolset {
                                    given: name.to_owned(),
                                    valid: valid(),
                                });
                            };
                            sets.insert(set);
                        }
                    }
                }
                sets
            }
        };
        let on_demand = options.toolsets.is_none();
        let offered: Vec<ToolSpec> = resolve_pr_tools::all()
            .into_iter()
            .filter(|t| on.contains(&t.toolset) || (on_demand && !t.toolset.hidden()))
            .filter_map(|t| {
                if options.read_only {
                    t.read_only_variant()
                } else {
                    Some(t)
                }
            })
            .collect();
        for tool in &offered {
            for (schema, value) in [
                ("input", &tool.input_schema),
                ("output", &tool.output_schema),
            ] {
                if !is_object_schema(value) {
                    return Err(Error::Contract {
                        tool: tool.name.to_owned(),
                        schema,
                    });
                }
            }
        }
        let mut selection = Selection {
            offered,
            on,
            enabled: Vec::new(),
            on_demand,
            options: options.clone(),
            remote: false,
        };
        selection.refresh();
        Ok(selection)
    }

    fn refresh(&mut self) {
        self.enabled = self
            .offered
            .iter()
            .filter(|t| self.on.contains(&t.toolset))
            .cloned()
            .collect();
    }

    /// This selection for callers on other machines (HTTP): without the code tools, which
    /// read a checkout on the server's machine that such callers cannot name, so every call
    /// to them would be refused. A stateless HTTP server cannot remember what one agent
    /// turned on, so without `--toolsets` it offers every toolset it has.
    pub fn for_remote_callers(mut self) -> Selection {
        self.offered
            .retain(|t| !t.toolset.reads_the_servers_checkout());
        if self.on_demand {
            self.on_demand = false;
            self.on = self.offered.iter().map(|t| t.toolset).collect();
        }
        self.remote = true;
        self.refresh();
        self
    }

    /// The tools on now, in registry order.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.enabled
    }

    /// Every tool this server may offer, on or off now, in registry order.
    pub fn offered(&self) -> &[ToolSpec] {
        &self.offered
    }

    /// Whether the toolset is on now.
    pub fn is_on(&self, set: Toolset) -> bool {
        self.on.contains(&set)
    }

    /// This selection with the toolset of the tool `name` on, where the agent may turn
    /// toolsets on: what one call from the command line (`resolve-pr tool`) may use.
    pub fn with_toolset_of(mut self, name: &str) -> Selection {
        if let Some(set) = self.toolset_to_enable(name) {
            self.on.insert(set);
            self.refresh();
        }
        self
    }

    /// Whether the agent may turn more toolsets on (`list_toolsets`, `enable_toolsets`).
    pub fn on_demand(&self) -> bool {
        self.on_demand
    }

    /// The toolsets this server has, sorted by name, each with whether it is on and its tools.
    pub fn toolsets(&self) -> Vec<(Toolset, bool, Vec<&'static str>)> {
        let mut sets: Vec<Toolset> = self.offered.iter().map(|t| t.toolset).collect();
        sets.sort_unstable();
        sets.dedup();
        sets.into_iter()
            .map(|set| {
                let tools = self
                    .offered
                    .iter()
                    .filter(|t| t.toolset == set)
                    .map(|t| t.name)
                    .collect();
                (set, self.on.contains(&set), tools)
            })
            .collect()
    }

    /// Turns these toolsets on; returns those that were off. Only for a server whose agent
    /// may do so ([`Selection::on_demand`]); a toolset this server does not have is refused.
    pub fn enable(&mut self, sets: &[Toolset]) -> Result<Vec<Toolset>, ToolError> {
        if !self.on_demand {
            return Err(ToolError::logical(format!(
                "this server offers a fixed set of toolsets ({}), chosen by its operator",
                self.on
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_code(ErrorCode::ToolsetsFixed)
            .with_suggestion(
                "Ask the operator to start resolve-pr without --toolsets (toolsets on demand) \
                 or with the toolsets you need.",
            ));
        }
        let have: BTreeSet<Toolset> = self.offered.iter().map(|t| t.toolset).collect();
        if let Some(missing) = sets.iter().find(|s| !have.contains(s)) {
            return Err(ToolError::user(format!(
                "this server has no tools of the toolset {missing}"
            ))
            .with_code(ErrorCode::ToolsetNotAvailable));
        }
        let turned: Vec<Toolset> = sets
            .iter()
            .copied()
            .filter(|s| self.on.insert(*s))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        self.refresh();
        Ok(turned)
    }

    /// The toolset to turn on for a call of `name`: a tool this server offers, in a toolset
    /// that is off, where the agent may turn toolsets on. A call of such a tool turns its
    /// toolset on, so a client that did not reread the list can still call it.
    pub fn toolset_to_enable(&self, name: &str) -> Option<Toolset> {
        if !self.on_demand {
            return None;
        }
        self.offered
            .iter()
            .find(|t| t.name == name && !self.on.contains(&t.toolset))
            .map(|t| t.toolset)
    }

    /// Whether tools that write were left out (`--read-only`).
    pub fn read_only(&self) -> bool {
        self.options.read_only
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.enabled.iter().map(|t| t.name).collect()
    }

    /// The enabled tool called `name`, or a `user` error that says why it is not available
    /// and names the tools that are.
    pub fn find(&self, name: &str) -> Result<&ToolSpec, ToolError> {
        if let Some(tool) = self.enabled.iter().find(|t| t.name == name) {
            return Ok(tool);
        }
        let names = self.names();
        let why = match resolve_pr_tools::find(name) {
            None => format!("there is no tool named {name:?}"),
            Some(t) if self.remote && t.toolset.reads_the_servers_checkout() => format!(
                "the tool {name:?} reads a checkout on the server's machine, which callers of \
                 a shared (HTTP) server cannot name; run resolve-pr over stdio where the \
                 checkout is"
            ),
            Some(t) if self.options.read_only && t.read_only_variant().is_none() => {
                format!(
                    "the tool {name:?} changes the forge, and read-only mode (--read-only) is on"
                )
            }
            Some(t) => format!(
                "the tool {name:?} belongs to the toolset {:?}, which is not enabled (--toolsets {})",
                t.toolset.as_str(),
                self.options
                    .toolsets
                    .as_deref()
                    .unwrap_or_default()
                    .join(",")
            ),
        };
        let suggestion = if names.is_empty() {
            "No tools are enabled with these options; start resolve-pr with other --toolsets or without --read-only."
                .to_owned()
        } else {
            format!("Available tools: {}.", names.join(", "))
        };
        let code = match resolve_pr_tools::find(name) {
            None => ErrorCode::UnknownTool,
            Some(t) if self.remote && t.toolset.reads_the_servers_checkout() => {
                ErrorCode::NotAvailableRemotely
            }
            Some(_) => ErrorCode::ToolNotEnabled,
        };
        Err(ToolError::user(why)
            .with_code(code)
            .with_detail("tool", name)
            .with_detail("available", names)
            .with_suggestion(suggestion))
    }
}

/// MCP requires both schemas of a tool to describe an object.
fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_toolsets_are_on_and_the_others_on_demand() {
        let mut s = Selection::new(&Options::default()).unwrap();
        assert!(s.on_demand());
        assert_eq!(s.names(), registry_names(|t| t.toolset.on_by_default()));
        assert!(s.find("find_definition").is_err());
        assert_eq!(s.toolset_to_enable("find_definition"), Some(Toolset::Code));
        assert_eq!(s.toolset_to_enable("get_failing_tests"), None);
        assert_eq!(s.toolset_to_enable("no_such_tool"), None);
        assert_eq!(
            s.enable(&[Toolset::Code, Toolset::Ci]).unwrap(),
            [Toolset::Code]
        );
        assert!(s.find("find_definition").is_ok());
        assert_eq!(
            s.names(),
            registry_names(|t| t.toolset.on_by_default() || t.toolset == Toolset::Code)
        );
        assert_eq!(s.enable(&[Toolset::Code]).unwrap(), []);
        let listed = s.toolsets();
        let public = Toolset::ALL.iter().filter(|t| !t.hidden()).count();
        assert_eq!(
            listed.len(),
            public,
            "the hidden internal toolset is not offered"
        );
        assert!(listed.iter().all(|(t, _, _)| *t != Toolset::Internal));
        assert!(s.enable(&[Toolset::Internal]).is_err());
        assert!(listed.iter().any(|(t, on, _)| *t == Toolset::Code && *on));
        assert!(listed.iter().any(|(t, on, _)| *t == Toolset::Git && !*on));
    }

    #[test]
    fn named_toolsets_are_a_fixed_set() {
        let all = Selection::new(&Options {
            read_only: false,
            toolsets: Some(vec!["all".into()]),
        })
        .unwrap();
        assert_eq!(all.names(), registry_names(|t| !t.toolset.hidden()));
        // Seed 002's internal API only when named.
        let internal = Selection::new(&Options {
            read_only: false,
            toolsets: Some(vec!["internal".into()]),
        })
        .unwrap();
        assert_eq!(
            internal.names(),
            registry_names(|t| t.toolset == Toolset::Internal)
        );
        let mut some = Selection::new(&Options {
            read_only: false,
            toolsets: Some(vec!["default".into(), "code".into()]),
        })
        .unwrap();
        assert!(!some.on_demand());
        assert_eq!(
            some.names(),
            registry_names(|t| t.toolset.on_by_default() || t.toolset == Toolset::Code)
        );
        assert_eq!(some.toolset_to_enable("pr_list"), None);
        let e = some.enable(&[Toolset::Comments]).unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::ToolsetsFixed));
        assert!(some.find("pr_list").is_err());
    }

    #[test]
    fn remote_callers_get_every_toolset_but_code_and_none_on_demand() {
        let s = Selection::new(&Options::default())
            .unwrap()
            .for_remote_callers();
        assert!(!s.on_demand());
        assert_eq!(
            s.names(),
            registry_names(|t| !t.toolset.reads_the_servers_checkout())
        );
        let Err(e) = s.find("find_definition") else {
            panic!("found")
        };
        assert_eq!(e.code, Some(ErrorCode::NotAvailableRemotely));
    }

    #[test]
    fn read_only_drops_writers_from_list_and_lookup() {
        let s = Selection::new(&Options {
            read_only: true,
            toolsets: Some(vec!["all".into()]),
        })
        .unwrap();
        assert!(s.tools().iter().all(|t| !t.writes()));
        // Readers, and the tools that write only when asked, which only plan here.
        let readers =
            registry_names(|t| !t.toolset.hidden() && (!t.writes() || t.writes_only_when_asked));
        assert_eq!(s.names(), readers);
        let planner = s.find("manage_stacked_prs").expect("kept");
        assert!(planner.annotations.read_only && !planner.annotations.destructive);
        assert!(s.find("resolve_review_thread").is_err());
        assert!(s.find("pr_comment_list").is_ok());
        let Err(e) = s.find("pr_comment_create") else {
            panic!("found")
        };
        assert_eq!(e.category, resolve_pr_core::Category::User);
        assert!(e.error.contains("read-only mode"), "{}", e.error);
        assert_eq!(
            e.suggestion,
            Some(format!("Available tools: {}.", readers.join(", ")))
        );
        // Turned on at run time, a toolset brings only its readers too.
        let mut s = Selection::new(&Options {
            read_only: true,
            toolsets: None,
        })
        .unwrap();
        s.enable(&[Toolset::Comments]).unwrap();
        assert!(s.tools().iter().all(|t| !t.writes()));
        assert!(s.find("pr_comment_list").is_ok());
        assert!(s.find("pr_comment_create").is_err());
        assert_eq!(s.toolset_to_enable("pr_comment_create"), None);
    }

    #[test]
    fn unknown_toolset_names_the_valid_ones() {
        let err = Selection::new(&Options {
            read_only: false,
            toolsets: Some(vec!["coments".into()]),
        })
        .err()
        .unwrap();
        assert_eq!(
            err.to_string(),
            "unknown toolset \"coments\"; valid toolsets: analysis, ci, code, comments, git, impact, internal, merge, refactor, reviews, workspace, all, default"
        );
        assert!(matches!(
            Selection::new(&Options {
                read_only: false,
                toolsets: Some(vec![" ".into()])
            }),
            Err(Error::NoToolsets { .. })
        ));
    }

    #[test]
    fn unknown_tool_names_the_available_ones() {
        let s = Selection::new(&Options::default()).unwrap();
        let Err(e) = s.find("pr_comment_delete") else {
            panic!("found")
        };
        assert_eq!(e.error, "there is no tool named \"pr_comment_delete\"");
        assert_eq!(
            e.suggestion,
            Some(format!(
                "Available tools: {}.",
                registry_names(|t| t.toolset.on_by_default()).join(", ")
            ))
        );
    }

    /// The registry's tool names that pass `keep`, in registry order.
    fn registry_names(keep: impl Fn(&ToolSpec) -> bool) -> Vec<&'static str> {
        resolve_pr_tools::all()
            .iter()
            .filter(|t| keep(t))
            .map(|t| t.name)
            .collect()
    }
}
