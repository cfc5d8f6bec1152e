//! Python exports, on real-shaped code.

use resolve_pr_syntax::{ApiChange, Dialect, compare, exports};

fn listing(source: &str) -> Vec<String> {
    exports(Dialect::Python, source)
        .expect("parses")
        .into_iter()
        .map(|e| {
            format!(
                "{} {} | {} @{}",
                e.kind.as_str(),
                e.name,
                e.signature,
                e.line
            )
        })
        .collect()
}

const MODULE: &str = r#""""HTTP helpers."""
from __future__ import annotations

import os
from typing import Any

MAX_RETRIES: int = 3
_cache = {}
timeout = 30
a, b = 1, 2


def fetch(url: str, *, retries: int = MAX_RETRIES, **kwargs: Any) -> bytes:
    """Fetch a URL."""
    return b""


def _internal():
    pass


@dataclass(frozen=True)
class Response(Base):
    status: int

    def __init__(self, status: int) -> None:
        self.status = status

    @property
    def ok(self) -> bool:
        return self.status < 400

    def _raw(self):
        return None

    async def read(self, n: int = -1) -> bytes:
        return b""


try:
    import ujson as json
except ImportError:
    def loads(text):
        return None

type Headers = dict[str, str]
"#;

#[test]
fn public_module_names_and_methods() {
    assert_eq!(
        listing(MODULE),
        [
            "const MAX_RETRIES | MAX_RETRIES: int @7",
            "variable timeout | timeout @9",
            "variable a | a @10",
            "variable b | b @10",
            "function fetch | def fetch(url: str, *, retries: int = MAX_RETRIES, **kwargs: Any) -> bytes @13",
            "class Response | class Response(Base) @22",
            "method Response.__init__ | def __init__(self, status: int) -> None @26",
            "method Response.ok | def ok(self) -> bool @29",
            "method Response.read | async def read(self, n: int = -1) -> bytes @36",
            "function loads | def loads(text) @43",
            "type Headers | type Headers = dict[str, str] @46",
        ]
    );
}

#[test]
fn a_literal_dunder_all_decides_exactly() {
    let source = r#"from .client import Client, connect as open_connection
from . import errors

__all__ = ["Client", "open_connection", "helper", "Config", "missing"]


def helper(x):
    return x


def not_listed():
    pass


class Config:
    def load(self, path): ...
"#;
    assert_eq!(
        listing(source),
        [
            "reexport Client | from .client import Client @1",
            "reexport open_connection | from .client import connect as open_connection @1",
            "variable missing | __all__ entry missing @4",
            "function helper | def helper(x) @7",
            "class Config | class Config @15",
            "method Config.load | def load(self, path) @16",
        ]
    );
    // `__all__` changed after its literal: the underscore rule applies again.
    let extended = "__all__ = ['a']\n__all__ += ['b']\n\ndef a(): pass\n\ndef b(): pass\n";
    let names: Vec<String> = exports(Dialect::Python, extended)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["a", "b"]);
    let computed = "__all__ = [name for name in dir() if not name.startswith('_')]\ndef a(): pass\ndef _b(): pass\n";
    let names: Vec<String> = exports(Dialect::Python, computed)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["a"]);
}

#[test]
fn signature_changes_but_not_docstrings_or_bodies() {
    let before = "def area(w: float, h: float) -> float:\n    \"\"\"Area.\"\"\"\n    return w * h\n\n\ndef scale(x):\n    return x\n";
    let after = "def area(w: float, h: float) -> float:\n    \"\"\"The area of a rectangle.\"\"\"\n    result = w * h\n    return result\n\n\ndef scale(x, factor=2):\n    return x * factor\n";
    let got = compare(Dialect::Python, before, after).unwrap();
    assert_eq!(got.len(), 1, "{got:?}");
    match &got[0] {
        ApiChange::Changed { before, after } => {
            assert_eq!(before.signature, "def scale(x)");
            assert_eq!(after.signature, "def scale(x, factor = 2)");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn syntax_error_line() {
    let err = exports(
        Dialect::Python,
        "def ok():\n    pass\n\ndef broken(:\n    pass\n",
    )
    .unwrap_err();
    assert!(
        matches!(err, resolve_pr_syntax::SyntaxError::Invalid { line: 4, .. }),
        "{err:?}"
    );
}
