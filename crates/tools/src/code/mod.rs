//! What the code-intelligence tools share: the contract's types (zero-based `Position`,
//! `Range` with an exclusive end, `Location` with a workspace-relative POSIX `file_path`),
//! the target fields every position tool takes, locations with a line of context, pages of
//! results, their text, and the deadline and progress of a code call. Which file, which
//! symbol and which server a target means is the code layer's (`resolve_pr_code::target`);
//! this module hands it the tools' arguments and the context's server pool.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Locations a page shows.
pub(crate) const PAGE: usize = 50;

mod aim;
mod bounded;
mod locate;
pub(crate) mod notify;
mod render;
mod target;
mod texts;

pub(crate) use aim::{aim, target_warnings};
pub(crate) use bounded::{PROGRESS_EVERY, bounded};
pub(crate) use locate::{Offset, check_cursor, locate, page};
pub(crate) use render::{ONE_BASED, render_locations_output, shown_at};
pub(crate) use resolve_pr_code::target::{
    Aimed, MAX_PROJECTS, TestTarget, file_in, guessed_flags, guessed_flags_in, language_named,
    language_of, languages, lsp_error, path_in, project_roots, projects_not_asked, relative_error,
    symbol_at,
};
pub(crate) use target::{
    projects_for_name, refactoring_server_for_file, server_for_file, server_holding,
};
pub(crate) use texts::{Texts, display_path, symbol_info};

// The contract's shared types carry no doc comments: schemars would repeat them in every
// schema that holds them (the server's instructions say what they mean, once).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    // Relative to the workspace, with `/`; absolute when outside it (a library's source).
    pub file_path: String,
    pub range: Range,
    // The text of the range's first line, trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// "text": a syntax scan's match the server missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

// A reference and the function, method or type it sits in (read with tree-sitter; only
// find_references says it, so the other tools' schemas do not grow).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    #[serde(flatten)]
    pub location: Location,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
}

/// An item of a list of locations, as the text shows it.
pub(crate) trait Shown {
    fn location(&self) -> &Location;
    fn container(&self) -> Option<&str> {
        None
    }
}

impl Shown for Location {
    fn location(&self) -> &Location {
        self
    }
}

impl Shown for Reference {
    fn location(&self) -> &Location {
        &self.location
    }
    fn container(&self) -> Option<&str> {
        self.container.as_deref()
    }
}

// A symbol where it is declared (no doc comment: it would repeat in every schema that holds one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolInfo {
    pub name: String,
    // LSP's symbol kind in lower case: function, method, class, struct, interface, ...
    pub symbol_kind: String,
    pub language: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub location: Location,
}

pub(crate) fn position(p: resolve_pr_lsp::Pos) -> Position {
    Position {
        line: p.line,
        character: p.character,
    }
}

pub(crate) fn range(s: resolve_pr_lsp::Span) -> Range {
    Range {
        start: position(s.start),
        end: position(s.end),
    }
}

/// The target fields every position tool takes, as one value.
pub(crate) struct TargetArgs<'a> {
    pub directory: Option<&'a str>,
    pub file_path: Option<&'a str>,
    pub position: Option<Position>,
    pub symbol: Option<&'a str>,
    pub symbol_kind: Option<&'a str>,
    pub language: Option<&'a str>,
    pub from_failure: Option<&'a str>,
}

/// Declares a position tool's input: the target fields, then the tool's own.
macro_rules! target_input {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The checkout. Default: the server's working directory.
            #[serde(default)]
            pub directory: Option<String>,
            #[serde(default)]
            #[schemars(example = &"src/lib.rs")]
            pub file_path: Option<String>,
            #[serde(default)]
            pub position: Option<$crate::code::Position>,
            /// Instead of file_path and position: a name, maybe qualified ("Circle::area").
            #[serde(default)]
            pub symbol: Option<String>,
            /// With symbol: function, method, class, struct, ...
            #[serde(default)]
            pub symbol_kind: Option<String>,
            /// With symbol: rust, typescript, python, c or go. Default: all in the checkout.
            #[serde(default)]
            pub language: Option<String>,
            /// Instead: "file:line" of a failure (line from 1); targets the function holding it.
            #[serde(default)]
            #[schemars(example = &"src/lib.rs:42")]
            pub from_failure: Option<String>,
            $($(#[$fmeta])* pub $field: $ty,)*
        }

        impl $name {
            pub(crate) fn target(&self) -> $crate::code::TargetArgs<'_> {
                $crate::code::TargetArgs {
                    directory: self.directory.as_deref(),
                    file_path: self.file_path.as_deref(),
                    position: self.position,
                    symbol: self.symbol.as_deref(),
                    symbol_kind: self.symbol_kind.as_deref(),
                    language: self.language.as_deref(),
                    from_failure: self.from_failure.as_deref(),
                }
            }
        }
    };
}
pub(crate) use target_input;

/// What a location question asks the server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Goto {
    Definition,
    TypeDefinition,
    Implementations,
    References { include_declaration: bool },
}

/// The answer of find_definition, find_references, find_implementations and
/// find_type_definition.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LocationsOutput<L = Location> {
    /// The symbol asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SymbolInfo>,
    pub locations: Vec<L>,
    /// On every page.
    pub total: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// What the server was indexing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
    pub server: String,
    /// Each starts with its code (AMBIGUOUS_TARGET).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl LocationsOutput<Reference> {
    /// The answer without the containers of its locations (which only find_references
    /// gives).
    pub(crate) fn plain(self) -> LocationsOutput<Location> {
        LocationsOutput {
            target: self.target,
            locations: self.locations.into_iter().map(|r| r.location).collect(),
            total: self.total,
            next_cursor: self.next_cursor,
            partial: self.partial,
            indexing: self.indexing,
            server: self.server,
            warnings: self.warnings,
        }
    }
}

/// The code tools read the local checkout and change nothing.
pub(crate) const READ_LOCAL: crate::registry::Annotations = crate::registry::Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

pub(crate) use resolve_pr_lsp::servers::source_files;
