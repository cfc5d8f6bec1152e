//! Rust exports, on real-shaped code.

use resolve_pr_syntax::{ApiChange, Dialect, compare, exports};

fn listing(source: &str) -> Vec<String> {
    exports(Dialect::Rust, source)
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

const LIB: &str = r#"//! A small cache.

use std::collections::HashMap;

/// The default capacity.
pub const DEFAULT_CAPACITY: usize = 64;
pub(crate) const INTERNAL: u8 = 1;
static COUNTER: AtomicUsize = AtomicUsize::new(0);
pub static VERSION: &str = "1.0";

/// A cache of values by key.
#[derive(Debug, Clone)]
pub struct Cache<K, V>
where
    K: Eq + std::hash::Hash,
{
    /// How many entries at most.
    pub capacity: usize,
    entries: HashMap<K, V>,
}

pub struct Pair(pub u32, u32);

struct Hidden {
    a: u8,
}

impl Hidden {
    pub fn leak(&self) -> u8 {
        self.a
    }
}

impl<K: Eq + std::hash::Hash, V> Cache<K, V> {
    /// A cache with room for `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        Self { capacity, entries: HashMap::new() }
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.entries.get(key)
    }

    fn evict(&mut self) {}

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub const LIMIT: usize = 1024;
}

impl<K, V> Default for Cache<K, V> {
    fn default() -> Self {
        todo!()
    }
}

#[derive(Debug)]
pub enum Policy {
    /// Least recently used.
    Lru,
    Fifo { window: u32 },
}

pub trait Store {
    type Key;
    const NAME: &'static str;
    fn load(&self, key: &Self::Key) -> Option<Vec<u8>>;
    fn warm(&self) {}
}

pub type Result<T> = std::result::Result<T, Error>;

pub mod codec {
    pub fn encode(bytes: &[u8]) -> String {
        String::new()
    }
    fn private() {}
    pub(super) fn semi() {}
}

mod internal {
    pub fn not_reachable() {}
}

pub use crate::codec::{encode as enc, self};

#[macro_export]
macro_rules! cache {
    () => {};
}

macro_rules! local {
    () => {};
}

pub async unsafe fn raw<'a, T: ?Sized>(ptr: *const T, _len: usize) -> &'a T {
    unimplemented!()
}

extern "C" {
    pub fn c_hook(code: i32) -> i32;
}
"#;

#[test]
fn pub_items_impl_methods_modules_and_macros() {
    let got = listing(LIB);
    let expected = [
        "const DEFAULT_CAPACITY | pub const DEFAULT_CAPACITY: usize @6",
        "static VERSION | pub static VERSION: &str @9",
        "struct Cache | pub struct Cache<K, V> where K: Eq + std::hash::Hash { pub capacity: usize, .. } @13",
        "struct Pair | pub struct Pair(pub u32, u32) @22",
        "method Cache::new | pub fn new(capacity: usize) -> Self @36",
        "method Cache::get | pub fn get(&self, key: &K) -> Option<&V> @40",
        "const Cache::LIMIT | pub const LIMIT: usize @50",
        "enum Policy | pub enum Policy { Lru, Fifo { window: u32 } } @60",
        "trait Store | pub trait Store @66",
        "type Store::Key | type Key @67",
        "const Store::NAME | const NAME: &'static str @68",
        "method Store::load | fn load(&self, key: &Self::Key) -> Option<Vec<u8>> @69",
        "method Store::warm | fn warm(&self) @70",
        "type Result | pub type Result<T> = std::result::Result<T, Error> @73",
        "module codec | pub mod codec @75",
        "function codec::encode | pub fn encode(bytes: &[u8]) -> String @76",
        "reexport enc | pub use crate::codec::{ encode as enc, self } @87",
        "reexport self | pub use crate::codec::{ encode as enc, self } @87",
        "macro cache | macro_rules! cache @90",
        "function raw | pub async unsafe fn raw<'a, T: ?Sized>(ptr: *const T, _len: usize) -> &'a T @98",
        "function c_hook | pub fn c_hook(code: i32) -> i32 @103",
    ];
    assert_eq!(got, expected, "{got:#?}");
}

fn changes(before: &str, after: &str) -> Vec<String> {
    compare(Dialect::Rust, before, after)
        .expect("both parse")
        .into_iter()
        .map(|c| match c {
            ApiChange::Removed { before } => format!("removed {}", before.name),
            ApiChange::Changed { before, after } => {
                format!(
                    "changed {}: {} => {}",
                    before.name, before.signature, after.signature
                )
            }
            ApiChange::Added { after } => format!("added {}", after.name),
        })
        .collect()
}

#[test]
fn bodies_docs_layout_and_trailing_commas_are_not_changes() {
    let before = r#"
/// Parses a header.
pub fn parse(input: &str, strict: bool) -> Result<Header, Error> {
    let _ = (input, strict);
    todo!()
}
"#;
    let after = r#"
/// Parses one header line (rewritten docs).
// A plain comment too.
#[inline]
pub fn parse(
    input: &str,
    strict: bool, // the mode
) -> Result<Header, Error> {
    Header::read(input)
}
"#;
    assert_eq!(changes(before, after), Vec::<String>::new());
}

#[test]
fn parameter_return_generic_and_visibility_changes() {
    let before = r#"
pub struct Client;
impl Client {
    pub fn send(&self, body: &[u8]) -> usize { 0 }
    pub fn close(self) {}
}
pub fn connect<A: ToSocketAddrs>(addr: A) -> Client { Client }
pub fn stays() {}
pub struct Options { pub retries: u32, timeout: u64 }
"#;
    let after = r#"
pub struct Client;
impl Client {
    pub fn send(&self, body: &[u8], flush: bool) -> usize { 0 }
    pub(crate) fn close(self) {}
}
pub fn connect<A: ToSocketAddrs + Send>(addr: A) -> Client { Client }
pub fn stays() {}
pub struct Options { pub retries: u32, timeout: u64, verbose: bool }
pub fn fresh() {}
"#;
    assert_eq!(
        changes(before, after),
        [
            "changed Client::send: pub fn send(&self, body: &[u8]) -> usize => pub fn send(&self, body: &[u8], flush: bool) -> usize",
            "removed Client::close",
            "changed connect: pub fn connect<A: ToSocketAddrs>(addr: A) -> Client => pub fn connect<A: ToSocketAddrs + Send>(addr: A) -> Client",
            "added fresh",
        ]
    );
}

#[test]
fn cfg_alternatives_with_one_name_pair_as_a_multiset() {
    let before = r#"
#[cfg(unix)]
pub fn home() -> PathBuf { todo!() }
#[cfg(windows)]
pub fn home() -> Option<PathBuf> { todo!() }
"#;
    // The unix one moved below and is unchanged; the windows one changed.
    let after = r#"
#[cfg(windows)]
pub fn home() -> Result<PathBuf, Error> { todo!() }
#[cfg(unix)]
pub fn home() -> PathBuf { todo!() }
"#;
    assert_eq!(
        changes(before, after),
        [
            "changed home: pub fn home() -> Option<PathBuf> => pub fn home() -> Result<PathBuf, Error>"
        ]
    );
}

#[test]
fn a_syntax_error_is_an_error_with_its_line_and_recovery_keeps_the_rest() {
    let broken = "pub fn good() {}\n\npub fn bad(x: u32 -> u8 {}\n\npub struct Fine;\n";
    let err = exports(Dialect::Rust, broken).unwrap_err();
    match err {
        resolve_pr_syntax::SyntaxError::Invalid { language, line, .. } => {
            assert_eq!((language, line), ("rust", 3));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(compare(Dialect::Rust, "pub fn good() {}", broken).is_err());
    let recovered = resolve_pr_syntax::exports_recovered(Dialect::Rust, broken).unwrap();
    let names: Vec<&str> = recovered.exports.iter().map(|e| e.name.as_str()).collect();
    assert!(
        names.contains(&"good") && names.contains(&"Fine"),
        "{names:?}"
    );
    assert!(!names.contains(&"bad"), "{names:?}");
    assert_eq!(recovered.error_lines.first(), Some(&3));
}

#[test]
fn hostile_input_does_not_panic() {
    let deep = format!("{}{}", "pub mod m { ".repeat(200), "}".repeat(200));
    let names = exports(Dialect::Rust, &deep).unwrap();
    assert_eq!(
        names.len(),
        33,
        "modules deeper than the limit are not read"
    );
    for src in ["", "\u{0}", "pub", "impl", "pub fn", "}}}}", "pub use ;"] {
        let _ = exports(Dialect::Rust, src);
        let _ = resolve_pr_syntax::exports_recovered(Dialect::Rust, src);
    }
    let huge = " ".repeat(resolve_pr_syntax::MAX_SOURCE_BYTES + 1);
    assert!(matches!(
        exports(Dialect::Rust, &huge),
        Err(resolve_pr_syntax::SyntaxError::TooLarge { .. })
    ));
}
