//! Go exports, on real-shaped code.

use resolve_pr_syntax::{ApiChange, Dialect, compare, exports};

fn listing(source: &str) -> Vec<String> {
    exports(Dialect::Go, source)
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

const SERVER: &str = r#"// Package server serves HTTP.
package server

import (
	"net/http"
	"sync"
)

// DefaultAddr is where a server listens.
const DefaultAddr = ":8080"

const (
	ModeDev Mode = iota
	ModeProd
	modeTest
)

var (
	ErrClosed = errors.New("closed")
	verbose   bool
)

// Server serves requests.
type Server[T any] struct {
	Addr    string `json:"addr"`
	Handler http.Handler
	mu      sync.Mutex
	http.Server
}

type Mode int

type Handler interface {
	Serve(w http.ResponseWriter, r *http.Request) error
}

type Alias = Server[int]

type options struct{ debug bool }

// New makes a server.
func New[T any](addr string, opts ...Option) (*Server[T], error) {
	return &Server[T]{Addr: addr}, nil
}

func (s *Server[T]) ListenAndServe() error { return nil }

func (s *Server[T]) shutdown() {}

func (o options) Apply() {}

func helper() {}
"#;

#[test]
fn upper_case_package_level_names() {
    assert_eq!(
        listing(SERVER),
        [
            "const DefaultAddr | const DefaultAddr @10",
            "const ModeDev | const ModeDev Mode @13",
            "const ModeProd | const ModeProd @14",
            "variable ErrClosed | var ErrClosed @19",
            "struct Server | type Server[T any] struct { Addr string `json:\"addr\"`; Handler http.Handler; http.Server; .. } @24",
            "type Mode | type Mode int @31",
            "interface Handler | type Handler interface { Serve(w http.ResponseWriter, r *http.Request) error } @33",
            "type Alias | type Alias = Server[int] @37",
            "function New | func New[T any](addr string, opts ...Option) (*Server[T], error) @42",
            "method Server.ListenAndServe | func (*Server[T]) ListenAndServe() error @46",
        ]
    );
}

#[test]
fn receiver_renames_and_bodies_are_not_changes_but_results_are() {
    let before = "package p\n\nfunc (s *Store) Get(key string) (string, bool) { return \"\", false }\n\nfunc (s *Store) Put(key, value string) {}\n\ntype Store struct{}\n";
    let after = "package p\n\n// Get reads a key.\nfunc (st *Store) Get(key string) (string, bool) {\n\treturn st.m[key], true\n}\n\nfunc (st *Store) Put(key, value string) error { return nil }\n\ntype Store struct{}\n";
    let got = compare(Dialect::Go, before, after).unwrap();
    assert_eq!(got.len(), 1, "{got:?}");
    match &got[0] {
        ApiChange::Changed { before, after } => {
            assert_eq!(before.name, "Store.Put");
            assert_eq!(before.signature, "func (*Store) Put(key, value string)");
            assert_eq!(
                after.signature,
                "func (*Store) Put(key, value string) error"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn unexported_field_added_shows_as_a_change_of_the_struct() {
    let before = "package p\n\ntype Config struct {\n\tName string\n}\n";
    let after = "package p\n\ntype Config struct {\n\tName string\n\tcache map[string]int\n}\n";
    let got = compare(Dialect::Go, before, after).unwrap();
    assert!(
        matches!(&got[..], [ApiChange::Changed { after, .. }] if after.signature == "type Config struct { Name string; .. }"),
        "{got:?}"
    );
}

#[test]
fn syntax_error_line() {
    let err = exports(Dialect::Go, "package p\n\nfunc F( {\n}\n").unwrap_err();
    assert!(
        matches!(err, resolve_pr_syntax::SyntaxError::Invalid { line: 3, .. }),
        "{err:?}"
    );
}

#[test]
fn a_missing_token_is_an_error_line_in_recovery_too() {
    // tree-sitter-go inserts a missing statement terminator here; the missing leaf does not
    // report an error itself, only its parent does (found by the property test).
    let source = "package p\n impl";
    let err = exports(Dialect::Go, source).unwrap_err();
    assert!(matches!(
        err,
        resolve_pr_syntax::SyntaxError::Invalid { .. }
    ));
    let recovered = resolve_pr_syntax::exports_recovered(Dialect::Go, source).unwrap();
    assert!(!recovered.error_lines.is_empty());
}
