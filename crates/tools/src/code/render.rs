//! The text of a code tool's locations, `file:line:column` from 1.

use super::{LocationsOutput, Shown};
/// What a code tool's text says once about its positions: `file:line:column` counts from 1,
/// as compilers and editors print it, while the structured output and the `position`
/// argument count from 0, as LSP and seed 002 do.
pub(crate) const ONE_BASED: &str = "(line:column from 1; a position argument counts from 0)";

/// `file:line:column`, counting from 1 (see [`ONE_BASED`]).
pub(crate) fn shown_at(file: &str, line: u32, character: u32) -> String {
    format!(
        "{file}:{}:{}",
        u64::from(line) + 1,
        u64::from(character) + 1
    )
}

/// One line per location, `file:line:column` from 1.
pub(crate) fn render_locations<L: Shown>(out: &mut String, locations: &[L]) {
    for shown in locations {
        let l = shown.location();
        out.push('\n');
        out.push_str(&shown_at(
            &l.file_path,
            l.range.start.line,
            l.range.start.character,
        ));
        if let Some(c) = shown.container() {
            out.push_str(&format!(" (in {c})"));
        }
        if l.source.as_deref() == Some("text") {
            out.push_str(" [text match]");
        }
        if let Some(c) = &l.context {
            out.push_str("  ");
            out.push_str(c);
        }
    }
}

/// The text of a location answer.
pub(crate) fn render_locations_output<L: Shown>(what: &str, out: &LocationsOutput<L>) -> String {
    let mut text = match &out.target {
        Some(t) => format!(
            "{} of {} {} ({}): {}",
            what,
            t.symbol_kind,
            t.name,
            shown_at(
                &t.location.file_path,
                t.location.range.start.line,
                t.location.range.start.character
            ),
            out.total
        ),
        None => format!("{what}: {}", out.total),
    };
    text.push(' ');
    text.push_str(ONE_BASED);
    if let Some(i) = &out.indexing {
        text.push_str(&format!(
            "; {} is still indexing ({i}), so this may be incomplete",
            out.server
        ));
    }
    render_locations(&mut text, &out.locations);
    for w in &out.warnings {
        text.push('\n');
        text.push_str(w);
    }
    text
}
