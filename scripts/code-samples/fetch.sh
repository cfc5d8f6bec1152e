#!/usr/bin/env bash
# Builds the three checkouts issue 26's before/after answers were measured on, from the
# package registries, into DIR (default ./code-samples): a pnpm workspace of four TanStack
# Query packages (npm), zlib-ng without a compile database (the libz-sys crate), and a Cargo
# workspace of semver, clap_lex and anyhow (crates.io).
set -euo pipefail
dir=${1:-code-samples}
mkdir -p "$dir" && cd "$dir"
commit() { git init -q && git add -A && git -c user.email=s@example.com -c user.name=samples commit -qm sample; }

rm -rf tsmono && mkdir -p tsmono/packages
for p in query-core@5.108.4 vue-query@5.104.0 solid-query@5.104.5 svelte-query@5.90.2; do
  name=${p%@*}
  tarball=$(npm pack --silent "@tanstack/$p")
  mkdir -p "tsmono/packages/$name"
  tar xzf "$tarball" -C "tsmono/packages/$name" --strip-components=1
  rm -rf "tsmono/packages/$name/build" "tsmono/packages/$name/dist" "$tarball"
  printf '{\n  "compilerOptions": {"target": "ES2020", "module": "ESNext", "moduleResolution": "Bundler", "strict": true, "skipLibCheck": true, "noEmit": true},\n  "include": ["src"]\n}\n' > "tsmono/packages/$name/tsconfig.json"
done
printf '{\n  "name": "query-monorepo",\n  "private": true,\n  "type": "module"\n}\n' > tsmono/package.json
printf "packages:\n  - 'packages/*'\n" > tsmono/pnpm-workspace.yaml
printf 'export default {\n  semi: false,\n}\n' > tsmono/prettier.config.mjs
(cd tsmono && commit)

rm -rf zlibng libz-sys-1.1.22
curl -sSfL https://static.crates.io/crates/libz-sys/libz-sys-1.1.22.crate | tar xz
cp -r libz-sys-1.1.22/src/zlib-ng zlibng && rm -rf libz-sys-1.1.22
(cd zlibng && commit)

rm -rf rustws && mkdir rustws
for c in semver/1.0.26 clap_lex/0.7.5 anyhow/1.0.98; do
  n=${c%/*} v=${c#*/}
  curl -sSfL "https://static.crates.io/crates/$n/$n-$v.crate" | tar xz -C rustws
  mv "rustws/$n-$v" "rustws/$n"
  rm -f "rustws/$n/Cargo.toml.orig" "rustws/$n/.cargo_vcs_info.json" "rustws/$n/Cargo.lock"
done
printf '[workspace]\nmembers = ["semver", "clap_lex", "anyhow"]\nresolver = "2"\n' > rustws/Cargo.toml
(cd rustws && commit)
echo "checkouts in $(pwd): tsmono (q_ts.json), zlibng (q_c.json), rustws (q_rs.json)"
