#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust unit/property/integration tests, and the
# end-to-end test that drives the built binary with the official Python MCP client.
# Installs the Python test dependencies into .venv on first run. Tests never download
# anything else: API descriptions are vendored under vendor/.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --workspace --locked

echo "== end-to-end (Python MCP client over stdio)"
cargo build --locked -p resolve-pr -p resolve-pr-forge-sim --bins
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/e2e/requirements.txt
.venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider
