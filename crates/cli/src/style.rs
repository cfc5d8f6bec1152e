//! How to print for whoever reads stdout: people at a terminal get tables and (unless
//! `NO_COLOR` is set) a little colour; pipes and `--json` get JSON, so scripts and agents never
//! parse prose.

use std::io::IsTerminal;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub json: bool,
    color: bool,
}

impl Style {
    pub fn detect(force_json: bool) -> Style {
        let tty = std::io::stdout().is_terminal();
        // https://no-color.org: any non-empty value turns colour off.
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style {
            json: force_json || !tty,
            color: tty && !no_color && !dumb,
        }
    }

    /// For output meant to be read (the demo): text even through a pipe (`demo | less`),
    /// JSON only when asked; colour only on a terminal.
    #[cfg(feature = "demo")]
    pub fn for_people(json: bool) -> Style {
        Style {
            json,
            ..Style::detect(false)
        }
    }

    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    #[cfg(feature = "demo")]
    pub fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }
    pub fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }
    pub fn cyan(&self, s: &str) -> String {
        self.paint("36", s)
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
}

#[cfg(test)]
impl Style {
    pub fn plain() -> Style {
        Style {
            json: false,
            color: false,
        }
    }
}
