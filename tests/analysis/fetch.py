#!/usr/bin/env python3
"""Download and extract the pinned analysis corpus (tests/analysis/corpus.json).

    python tests/analysis/fetch.py [--dest DIR] [--plant] [--only NAME-VERSION ...]

DIR defaults to $RESOLVE_PR_CORPUS, else ~/.cache/resolve-pr/corpus.  Each project is
extracted to DIR/<name>-<version>/ and its root (DIR/<name>-<version>/<root>) is printed,
one line a project: "<name>-<version>\t<root path>".  With --plant, a copy with the
deterministic edits of plant.py is made beside it in DIR/<name>-<version>-planted/ and its
root printed too.

Archives are fetched with the registries' ordinary clients, so that whatever mirror or proxy
the machine is configured with is honoured: `cargo fetch` (crates), `pip download --no-deps
--no-binary :all:` (PyPI sdists), `npm pack` (npm).  Every archive is checked against the
sha256 in corpus.json before extraction; a mismatch is an error.  "goroot" projects copy the
pinned files from $(go env GOROOT)/src, each checked by its sha256 (mismatches are reported and
the file skipped; the exit status is then 1).

Idempotent: a project whose directory carries a marker with the verified sha256 is skipped.
Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus.json"
MARKER = ".corpus-verified"


def sha256_file(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def load_corpus() -> list[dict]:
    return json.loads(CORPUS.read_text())["projects"]


def project_id(p: dict) -> str:
    return f"{p['name']}-{p['version']}"


def run(cmd: list[str], cwd: pathlib.Path | None = None, env: dict | None = None) -> None:
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-4000:]}")


def download_crate(p: dict, tmp: pathlib.Path) -> pathlib.Path:
    """Resolve the exact version in a throw-away package and let cargo fetch it into its cache."""
    proj = tmp / "fetch-crate"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "lib.rs").write_text("")
    (proj / "Cargo.toml").write_text(
        '[package]\nname = "corpus-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
        f'[dependencies]\n{p["name"]} = "={p["version"]}"\n'
    )
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(tmp / "target"))
    run(["cargo", "fetch", "--quiet"], cwd=proj, env=env)
    cargo_home = pathlib.Path(os.environ.get("CARGO_HOME", pathlib.Path.home() / ".cargo"))
    hits = sorted(glob.glob(str(cargo_home / "registry" / "cache" / "*" / p["archive"])))
    for h in hits:
        if sha256_file(pathlib.Path(h)) == p["sha256"]:
            return pathlib.Path(h)
    raise RuntimeError(f"{p['archive']}: not in cargo's cache after cargo fetch (or sha256 differs): {hits}")


def download_pypi(p: dict, tmp: pathlib.Path) -> pathlib.Path:
    out = tmp / "pypi"
    out.mkdir()
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         "-d", str(out), f"{p['name']}=={p['version']}"])
    path = out / p["archive"]
    if not path.exists():
        raise RuntimeError(f"pip download did not produce {p['archive']}: {os.listdir(out)}")
    return path


def download_npm(p: dict, tmp: pathlib.Path) -> pathlib.Path:
    out = tmp / "npm"
    out.mkdir()
    run(["npm", "pack", "--silent", "--pack-destination", str(out), f"{p['name']}@{p['version']}"], cwd=out)
    path = out / p["archive"]
    if not path.exists():
        raise RuntimeError(f"npm pack did not produce {p['archive']}: {os.listdir(out)}")
    return path


def archive_for(p: dict, cache: pathlib.Path) -> pathlib.Path:
    cache.mkdir(parents=True, exist_ok=True)
    dest = cache / p["archive"]
    if dest.exists() and sha256_file(dest) == p["sha256"]:
        return dest
    with tempfile.TemporaryDirectory(prefix="corpus-fetch-") as t:
        tmp = pathlib.Path(t)
        got = {"crate": download_crate, "pypi": download_pypi, "npm": download_npm}[p["fetch"]](p, tmp)
        digest = sha256_file(got)
        if digest != p["sha256"]:
            raise RuntimeError(f"{p['archive']}: sha256 {digest}, expected {p['sha256']}")
        shutil.copyfile(got, dest)
    return dest


def extract(p: dict, dest_root: pathlib.Path, cache: pathlib.Path) -> pathlib.Path:
    target = dest_root / project_id(p)
    marker = target / MARKER
    if marker.exists() and marker.read_text().strip() == p["sha256"] and (target / p["root"]).is_dir():
        return target / p["root"]
    archive = archive_for(p, cache)
    if target.exists():
        shutil.rmtree(target)
    tmp_target = dest_root / (project_id(p) + ".partial")
    if tmp_target.exists():
        shutil.rmtree(tmp_target)
    tmp_target.mkdir(parents=True)
    with tarfile.open(archive, "r:*") as tf:
        tf.extractall(tmp_target, filter="data")
    (tmp_target / MARKER).write_text(p["sha256"] + "\n")
    tmp_target.rename(target)
    return target / p["root"]


def goroot_src() -> pathlib.Path:
    out = subprocess.run(["go", "env", "GOROOT"], stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    return pathlib.Path(out) / "src"


def copy_goroot(p: dict, dest_root: pathlib.Path) -> tuple[pathlib.Path, list[str]]:
    target = dest_root / project_id(p)
    root = target / p["root"]
    want = hashlib.sha256(json.dumps(p["files"], sort_keys=True).encode()).hexdigest()
    marker = target / MARKER
    if marker.exists() and marker.read_text().strip() == want:
        bad = [f["path"] for f in p["files"] if not (root / f["path"]).exists()
               or sha256_file(root / f["path"]) != f["sha256"]]
        if not bad:
            return root, []
    if target.exists():
        shutil.rmtree(target)
    src = goroot_src()
    mismatches = []
    for f in p["files"]:
        s = src / f["path"]
        if not s.exists():
            mismatches.append(f"{f['path']}: missing in {src}")
            continue
        digest = sha256_file(s)
        if digest != f["sha256"]:
            mismatches.append(f"{f['path']}: sha256 {digest}, expected {f['sha256']}")
            continue
        d = root / f["path"]
        d.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(s, d)
    if not mismatches:
        marker.write_text(want + "\n")
    return root, mismatches


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = os.environ.get("RESOLVE_PR_CORPUS") or str(pathlib.Path.home() / ".cache" / "resolve-pr" / "corpus")
    ap.add_argument("--dest", default=default, help=f"corpus directory (default: {default})")
    ap.add_argument("--plant", action="store_true", help="also make DIR/<name>-<version>-planted/ (plant.py)")
    ap.add_argument("--only", nargs="*", help="only these <name>-<version> ids")
    args = ap.parse_args()
    dest = pathlib.Path(args.dest).expanduser().resolve()
    dest.mkdir(parents=True, exist_ok=True)
    cache = dest / ".archives"
    status = 0
    for p in load_corpus():
        pid = project_id(p)
        if args.only and pid not in args.only:
            continue
        try:
            if p["fetch"] == "goroot":
                root, bad = copy_goroot(p, dest)
                for b in bad:
                    print(f"{pid}: MISMATCH {b}", file=sys.stderr)
                    status = 1
            else:
                root = extract(p, dest, cache)
        except Exception as e:  # report and go on with the others
            print(f"{pid}: ERROR {e}", file=sys.stderr)
            status = 1
            continue
        print(f"{pid}\t{root}")
        if args.plant:
            sys.path.insert(0, str(HERE))
            import plant  # noqa: E402  (same directory)

            try:
                proot = plant.planted_copy(p, dest)
            except Exception as e:
                print(f"{pid}-planted: ERROR {e}", file=sys.stderr)
                status = 1
                continue
            print(f"{pid}-planted\t{proot}")
    return status


if __name__ == "__main__":
    sys.exit(main())
