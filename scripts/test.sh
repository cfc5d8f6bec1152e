#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust unit/property/integration tests, and the
# end-to-end tests that drive the built binary with the official Python MCP client and with
# MCP Inspector's CLI. Installs the Python test dependencies into .venv and the pinned
# Inspector into tests/inspector/node_modules. Tests never download anything else: API
# descriptions are vendored under vendor/.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --workspace --locked

echo "== end-to-end (Python MCP client and MCP Inspector over stdio)"
cargo build --locked -p resolve-pr -p resolve-pr-forge-sim --bins
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/e2e/requirements.txt
# The Inspector's own postinstall script only matters in its source checkout.
npm ci --prefix tests/inspector --ignore-scripts --no-audit --no-fund --loglevel=error
.venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider
