//! Which tools a server (or one CLI call) offers: `--toolsets` keeps some groups, `--read-only`
//! drops every tool that writes. A tool left out is gone from the listing *and* refused when
//! called, so the listing never promises less than a call can do.

use resolve_pr_core::Error as ToolError;
use resolve_pr_tools::{ToolSpec, Toolset};
use serde_json::Value;

use crate::Error;

/// What the operator asked for on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Offer no tool whose `writes()` is true.
    pub read_only: bool,
    /// Offer only tools of these toolsets; `None` offers all.
    pub toolsets: Option<Vec<String>>,
}

/// The enabled tools, in registry order.
#[derive(Clone)]
pub struct Selection {
    enabled: Vec<ToolSpec>,
    options: Options,
    /// The code tools were left out because the callers are on other machines.
    remote: bool,
}

impl Selection {
    /// Applies the options to the registry. An unknown toolset name is an error rather than an
    /// empty server: a typo in `--toolsets` should fail at startup, not look like a bug later.
    pub fn new(options: &Options) -> Result<Selection, Error> {
        let all = resolve_pr_tools::all();
        let valid = || Toolset::ALL.iter().map(|t| t.as_str().to_owned()).collect();
        let wanted: Option<Vec<Toolset>> = match &options.toolsets {
            None => None,
            Some(given) => {
                let names: Vec<&str> = given
                    .iter()
                    .map(|s| s.trim())
                    .filter(|s| !s.is_empty())
                    .collect();
                if names.is_empty() {
                    return Err(Error::NoToolsets { valid: valid() });
                }
                let mut sets = Vec::with_capacity(names.len());
                for name in names {
                    let Some(set) = Toolset::from_name(name) else {
                        return Err(Error::UnknownToolset {
                            given: name.to_owned(),
                            valid: valid(),
                        });
                    };
                    sets.push(set);
                }
                Some(sets)
            }
        };
        let enabled: Vec<ToolSpec> = all
            .into_iter()
            .filter(|t| wanted.as_ref().is_none_or(|w| w.contains(&t.toolset)))
            .filter_map(|t| {
                if options.read_only {
                    t.read_only_variant()
                } else {
                    Some(t)
                }
            })
            .collect();
        for tool in &enabled {
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
        Ok(Selection {
            enabled,
            options: options.clone(),
            remote: false,
        })
    }

    /// This selection for callers on other machines (HTTP): without the code tools, which
    /// read a checkout on the server's machine that such callers cannot name, so every call
    /// to them would be refused.
    pub fn for_remote_callers(mut self) -> Selection {
        self.enabled.retain(|t| t.toolset != Toolset::Code);
        self.remote = true;
        self
    }

    pub fn tools(&self) -> &[ToolSpec] {
        &self.enabled
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
            Some(t) if self.remote && t.toolset == Toolset::Code => format!(
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
            None => "UNKNOWN_TOOL",
            Some(t) if self.remote && t.toolset == Toolset::Code => "NOT_AVAILABLE_REMOTELY",
            Some(_) => "TOOL_NOT_ENABLED",
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
    fn every_tool_by_default() {
        let s = Selection::new(&Options::default()).unwrap();
        assert_eq!(s.names(), registry_names(|_| true));
    }

    #[test]
    fn read_only_drops_writers_from_list_and_lookup() {
        let s = Selection::new(&Options {
            read_only: true,
            toolsets: None,
        })
        .unwrap();
        assert!(s.tools().iter().all(|t| !t.writes()));
        // Readers, and the tools that write only when asked, which only plan here.
        let readers = registry_names(|t| !t.writes() || t.writes_only_when_asked);
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
            "unknown toolset \"coments\"; valid toolsets: analysis, ci, code, comments, git, merge, reviews"
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
                registry_names(|_| true).join(", ")
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
