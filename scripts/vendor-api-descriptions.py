#!/usr/bin/env python3
"""Vendor the slices of the forges' published API descriptions that forge-sim serves.

forge-sim validates every response it sends against these files, so the simulator cannot
drift into a private dialect. Tests never download anything: this script is run by hand
when the simulator learns a new endpoint (add it to the operation lists below) or when the
pinned upstream versions are bumped. Python 3.11, standard library only; needs `npm` and
`cargo` on PATH.

Outputs (relative to the workspace root):
  vendor/api-descriptions/github-rest.json      operations + referenced schemas (JSON Schema)
  vendor/api-descriptions/forgejo-rest.json     same, for Forgejo/Gitea
  vendor/api-descriptions/github-schema.graphql the whole GitHub GraphQL schema
  vendor/api-descriptions/SOURCES.md            where each file came from

Usage: python3 scripts/vendor-api-descriptions.py [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

# Pinned upstream packages. Bump deliberately; the diff of the outputs is the review.
OCTOKIT_OPENAPI = "23.0.2"
OCTOKIT_GRAPHQL_SCHEMA = "15.26.1"
FORGEJO_API_CRATE = "0.12.0"

# The operations forge-sim serves: (method, path template as written in the description).
GITHUB_OPERATIONS = [
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    # Stacks: list pull requests (state/head/base filters) and retarget one (PATCH base).
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("patch", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/comments"),
    ("post", "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies"),
    ("get", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"),
    ("get", "/user"),
    ("get", "/rate_limit"),
    # CI: checks and statuses of a commit, required checks, Actions jobs, logs, artifacts.
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/status"),
    ("get", "/repos/{owner}/{repo}/rules/branches/{branch}"),
    # Merge readiness: how far a pull request's head is behind its base.
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("get", "/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"),
    ("get", "/repos/{owner}/{repo}/actions/jobs/{job_id}"),
    ("get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"),
    ("get", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs"),
    # Contents: a pull request's files and commits (impact, review).
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/commits"),
    # Issues: a repository's issues, one issue, a conversation comment read and edited by id.
    ("get", "/repos/{owner}/{repo}/issues"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
]
# Forgejo's paths are relative to /api/v1.
FORGEJO_OPERATIONS = [
    ("get", "/version"),
    ("get", "/user"),
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/pulls/{index}"),
    # Stacks: list pull requests, retarget one (PATCH base), and find one by base and head.
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("patch", "/repos/{owner}/{repo}/pulls/{index}"),
    ("get", "/repos/{owner}/{repo}/pulls/{base}/{head}"),
    ("get", "/repos/{owner}/{repo}/issues/{index}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{index}/comments"),
    ("get", "/repos/{owner}/{repo}/pulls/{index}/reviews"),
    ("get", "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}"),
    ("get", "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments"),
    # CI: commit statuses, branch protections, Actions runs, jobs, job logs and artifacts.
    ("get", "/repos/{owner}/{repo}/commits/{ref}/statuses"),
    ("get", "/repos/{owner}/{repo}/branch_protections"),
    ("get", "/repos/{owner}/{repo}/actions/runs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs"),
    ("get", "/repos/{owner}/{repo}/actions/jobs/{job_id}"),
    ("get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/zip"),
    # Contents: a pull request's files and commits, file contents at a revision, the
    # commits that changed a path (impact, review).
    ("get", "/repos/{owner}/{repo}/pulls/{index}/files"),
    ("get", "/repos/{owner}/{repo}/pulls/{index}/commits"),
    ("get", "/repos/{owner}/{repo}/raw/{filepath}"),
    ("get", "/repos/{owner}/{repo}/commits"),
    # Merge readiness: the base branch with its effective protection (readable by readers),
    # one protection rule (admins), the head's combined status, and the compare (behind-by).
    ("get", "/repos/{owner}/{repo}/branches/{branch}"),
    ("get", "/repos/{owner}/{repo}/branch_protections/{name}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/status"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    # Issues: a repository's issues, one issue, a conversation comment read and edited by id.
    ("get", "/repos/{owner}/{repo}/issues"),
    ("get", "/repos/{owner}/{repo}/issues/{index}"),
    ("get", "/repos/{owner}/{repo}/issues/comments/{id}"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{id}"),
    # Stacks: a base PR's timeline, whose `pull_push` comments record its force-pushes.
    ("get", "/repos/{owner}/{repo}/issues/{index}/timeline"),
]

# Go fields that are pointers to scalars, so null when unset, which go-swagger cannot tell
# from the struct (pointers to structs and times are handled generally, see convert()).
FORGEJO_NULLABLE_SCALARS = {"PullRequest": ["merge_commit_sha"]}

# Keys that describe documentation or code generation, not the shape of a value.
DROPPED_KEYS = {"example", "examples", "xml", "externalDocs", "discriminator"}


def run(cmd: list[str], cwd: Path) -> str:
    result = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    return result.stdout


def npm_pack(package: str, version: str, workdir: Path) -> Path:
    """Unpacks an npm tarball into workdir/<name>/package and returns that folder."""
    dest = workdir / package.replace("/", "_").lstrip("@")
    dest.mkdir(parents=True)
    out = run(["npm", "pack", f"{package}@{version}", "--silent"], cwd=dest).strip().splitlines()
    tarball = dest / out[-1]
    with tarfile.open(tarball) as tar:
        tar.extractall(dest, filter="data")
    return dest / "package"


def forgejo_swagger(workdir: Path) -> Path:
    """Fetches the forgejo-api crate through cargo and returns its swagger.v1.json."""
    project = workdir / "fetch-forgejo-api"
    (project / "src").mkdir(parents=True)
    (project / "src" / "lib.rs").write_text("")
    (project / "Cargo.toml").write_text(
        "[package]\nname = \"fetch-forgejo-api\"\nversion = \"0.0.0\"\nedition = \"2021\"\n"
        f"[dependencies]\nforgejo-api = \"={FORGEJO_API_CRATE}\"\n[workspace]\n"
    )
    run(["cargo", "fetch"], cwd=project)
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    pattern = str(cargo_home / "registry" / "src" / "*" / f"forgejo-api-{FORGEJO_API_CRATE}" / "swagger.v1.json")
    found = sorted(glob.glob(pattern))
    if not found:
        sys.exit(f"swagger.v1.json not found under {pattern}")
    return Path(found[0])


class Converter:
    """Turns OpenAPI 3.0 / Swagger 2.0 schemas into JSON Schema 2020-12 and collects refs."""

    def __init__(self, source_defs: dict, ref_prefix: str, go_swagger: bool):
        self.source_defs = source_defs
        self.ref_prefix = ref_prefix
        # go-swagger output (Forgejo) needs two adjustments, see convert().
        self.go_swagger = go_swagger
        self.pending: list[str] = []
        self.seen: set[str] = set()

    def ref(self, target: str) -> dict:
        if not target.startswith(self.ref_prefix):
            sys.exit(f"unexpected $ref {target}")
        name = target[len(self.ref_prefix):]
        if name not in self.seen:
            self.seen.add(name)
            self.pending.append(name)
        return {"$ref": f"#/definitions/{name}"}

    def convert(self, schema):
        if isinstance(schema, list):
            return [self.convert(s) for s in schema]
        if not isinstance(schema, dict):
            return schema
        if "$ref" in schema:
            # Siblings of $ref are ignored by both OpenAPI 3.0 and Swagger 2.0.
            return self.ref(schema["$ref"])
        out = {}
        for key, value in schema.items():
            if key in DROPPED_KEYS or key.startswith("x-") or key == "nullable":
                continue
            if key == "properties":
                out[key] = {name: self.convert_property(v) for name, v in value.items()}
            elif key in ("items", "not") or (key == "additionalProperties" and isinstance(value, dict)):
                out[key] = self.convert(value)
            elif key in ("allOf", "anyOf", "oneOf"):
                out[key] = [self.convert(v) for v in value]
            else:
                out[key] = copy.deepcopy(value)
        nullable = schema.get("nullable") is True
        if self.go_swagger:
            # Go's encoding/json writes a nil slice as null and go-swagger never says so;
            # Forgejo really sends e.g. {"errors": null} for a plain 404.
            if out.get("type") == "array":
                nullable = True
            # go-swagger lists every field of the Go struct, so an unlisted property in a
            # simulated response is a typo or an invented field: close the object.
            if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
                out["additionalProperties"] = False
        if nullable:
            if "type" in out:
                types = out["type"] if isinstance(out["type"], list) else [out["type"]]
                out["type"] = types + ["null"]
                if "enum" in out and None not in out["enum"]:
                    out["enum"] = out["enum"] + [None]
            else:
                out = {"anyOf": [out, {"type": "null"}]}
        return out

    def convert_property(self, schema):
        converted = self.convert(schema)
        if not self.go_swagger:
            return converted
        # Forgejo's API structs hold nested objects and most times as Go pointers, which
        # encoding/json writes as null when unset (e.g. "merged_at": null, "milestone": null);
        # go-swagger does not mark them, so a simulated null would look like a violation.
        if "$ref" in converted:
            return {"anyOf": [converted, {"type": "null"}]}
        if converted.get("format") == "date-time" and converted.get("type") == "string":
            converted["type"] = ["string", "null"]
        return converted

    def definitions(self) -> dict:
        defs = {}
        while self.pending:
            name = self.pending.pop()
            defs[name] = self.convert(self.source_defs[name])
            if self.go_swagger:
                for prop in FORGEJO_NULLABLE_SCALARS.get(name, []):
                    schema = defs[name]["properties"][prop]
                    schema["type"] = [schema["type"], "null"]
        return dict(sorted(defs.items()))


def extract_github(spec: dict) -> dict:
    conv = Converter(spec["components"]["schemas"], "#/components/schemas/", go_swagger=False)
    shared = spec["components"]["responses"]
    operations = []
    for method, path in GITHUB_OPERATIONS:
        op = spec["paths"][path][method]
        responses = {}
        for status, resp in op["responses"].items():
            if "$ref" in resp:
                resp = shared[resp["$ref"].rsplit("/", 1)[-1]]
            content = resp.get("content", {}).get("application/json")
            schema = conv.convert(content["schema"]) if content and "schema" in content else None
            responses[status] = {"description": resp.get("description", ""), "schema": schema}
        # GitHub answers 401 "Bad credentials" on every operation when a token is wrong, and
        # 304 to any conditional GET, but the description lists them on few operations.
        supplements = []
        if "401" not in responses:
            responses["401"] = {
                "description": "Requires authentication (supplement: sent by every operation for a bad token)",
                "schema": conv.ref("#/components/schemas/basic-error"),
            }
            supplements.append("401")
        # Primary and secondary rate limits answer 403 or 429 with a basic-error on any
        # operation (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api).
        for status in ("403", "429"):
            if status not in responses:
                responses[status] = {
                    "description": "Rate limit exceeded (supplement: any operation)",
                    "schema": conv.ref("#/components/schemas/basic-error"),
                }
                supplements.append(status)
        # A pull request or comment that does not exist answers 404 with a basic-error on
        # every operation below a repository, though some operations (e.g. listing reviews)
        # do not list it.
        if any(p in path for p in ("{pull_number}", "{comment_id}", "{job_id}", "{run_id}",
                                    "{check_run_id}", "{artifact_id}", "{ref}", "{branch}")):
            if "404" not in responses:
                responses["404"] = {
                    "description": "Resource not found (supplement: unknown pull request or comment)",
                    "schema": conv.ref("#/components/schemas/basic-error"),
                }
                supplements.append("404")
        # An expired job log (past the repository's retention, 90 days by default) answers
        # 410 Gone with a basic-error.
        if path.endswith("/actions/jobs/{job_id}/logs") and "410" not in responses:
            responses["410"] = {
                "description": "Gone (supplement: the log expired)",
                "schema": conv.ref("#/components/schemas/basic-error"),
            }
            supplements.append("410")
        if method == "get" and "304" not in responses:
            responses["304"] = {"description": "Not modified (supplement: any conditional GET)", "schema": None}
            supplements.append("304")
        operations.append({
            "method": method.upper(),
            "path": path,
            "operation_id": op.get("operationId"),
            "responses": dict(sorted(responses.items())),
            "supplemented_statuses": supplements,
        })
    return {
        "$comment": "Generated by scripts/vendor-api-descriptions.py; do not edit by hand.",
        "source": {"package": "@octokit/openapi", "version": OCTOKIT_OPENAPI,
                   "file": "generated/api.github.com.json", "api_version": spec["info"]["version"]},
        "operations": operations,
        "definitions": conv.definitions(),
    }


def extract_forgejo(spec: dict) -> dict:
    conv = Converter(spec["definitions"], "#/definitions/", go_swagger=True)
    shared = spec["responses"]
    operations = []
    for method, path in FORGEJO_OPERATIONS:
        op = spec["paths"][path][method]
        responses = {}
        for status, resp in op["responses"].items():
            if "$ref" in resp:
                resp = shared[resp["$ref"].rsplit("/", 1)[-1]]
            schema = conv.convert(resp["schema"]) if "schema" in resp else None
            responses[status] = {"description": resp.get("description", ""), "schema": schema}
        # The API middleware answers 401 for a missing or bad token on every route that needs
        # one; the description lists it on few operations.
        supplements = []
        if "401" not in responses:
            responses["401"] = {
                "description": "Unauthorized (supplement: sent by the API middleware for a missing or bad token)",
                "schema": conv.ref("#/definitions/APIUnauthorizedError"),
            }
            supplements.append("401")
        # A JSON body that fails the form binding (e.g. a missing required "body") is answered
        # 422 by the binding middleware with its own list shape, before the handler runs.
        takes_body = any(p.get("in") == "body" for p in op.get("parameters", []))
        if takes_body and "422" not in responses:
            responses["422"] = {
                "description": "Binding errors (supplement: sent by the form-binding middleware)",
                "schema": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "properties": {"fieldNames": {"type": "array", "items": {"type": "string"}},
                                   "classification": {"type": "string"},
                                   "message": {"type": "string"}}}},
            }
            supplements.append("422")
        operations.append({
            "method": method.upper(),
            "path": path,
            "operation_id": op.get("operationId"),
            "responses": dict(sorted(responses.items())),
            "supplemented_statuses": supplements,
        })
    return {
        "$comment": "Generated by scripts/vendor-api-descriptions.py; do not edit by hand.",
        "source": {"crate": "forgejo-api", "version": FORGEJO_API_CRATE, "file": "swagger.v1.json",
                   "api_version": spec["info"]["version"]},
        "base_path": spec.get("basePath", "/api/v1"),
        "operations": operations,
        "definitions": conv.definitions(),
    }


SOURCES = """# Vendored API descriptions

forge-sim validates every response it serves against these files (see
`crates/forge-sim/src/contract.rs`). They are generated; do not edit them by hand.

| File | Source | Version |
|---|---|---|
| `github-rest.json` | npm `@octokit/openapi`, `generated/api.github.com.json` (OpenAPI 3.0, API {gh_api}) | {openapi} |
| `github-schema.graphql` | npm `@octokit/graphql-schema`, `schema.graphql` (whole schema) | {graphql} |
| `forgejo-rest.json` | crates.io `forgejo-api`, `swagger.v1.json` (Swagger 2.0, Forgejo {fj_api}) | {forgejo} |

The REST files hold only the operations forge-sim serves (listed at the top of the script)
and every schema they reference, converted to plain JSON Schema 2020-12:
- OpenAPI 3.0 `nullable: true` becomes a type union with `"null"` (or `anyOf` with null);
- `$ref`s point at `#/definitions/NAME` in the same file; `example`, `x-*` and
  `discriminator` keys are dropped;
- Forgejo (go-swagger): arrays, nested objects and date-times also accept `null` (Go writes
  nil slices and nil pointers as null; go-swagger does not say which fields are pointers), and
  objects with listed properties are closed (`additionalProperties: false`), because
  go-swagger lists every field of the Go struct;
- supplements, listed per operation in `supplemented_statuses`: 401 on every operation (both
  forges send it for a bad token), for GitHub 403/429 on every operation (rate limits), 304
  on every GET (conditional requests), 404 on operations addressing a pull request, comment,
  commit, branch, check run, job, run or artifact (an unknown number or id) and 410 on the
  job-log download (an expired log), for
  Forgejo 422 on operations with a JSON body (form-binding errors).

## Served but not described

Gitea's review-conversation endpoints are newer than every Gitea/Forgejo description published
in a package registry (npm `gitea-js` stops at Gitea 1.23, npm `gitea-api` at 1.17, crates.io
`forgejo-api` describes Forgejo, which lacks them), so forge-sim serves them (only for a
scenario whose instance has them) without a contract check rather than with an invented
description:
- `POST /repos/{owner}/{repo}/pulls/comments/{id}/resolve` and `.../unresolve` (204; Gitea
  1.26.0, go-gitea/gitea#36441);
- `POST /repos/{owner}/{repo}/pulls/{index}/comments/{id}/replies` (201 `PullReviewComment`;
  Gitea 1.27.0, go-gitea/gitea#36683).
Its success bodies reuse the described `PullReviewComment` shape, which the tests check.

## Regenerate

    python3 scripts/vendor-api-descriptions.py

Needs `npm` and `cargo`. To add an endpoint, add it to `GITHUB_OPERATIONS` or
`FORGEJO_OPERATIONS` in the script and run it again; to bump a source, change the pinned
version constant at the top of the script.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--out", type=Path, default=root / "vendor" / "api-descriptions")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="vendor-api-") as tmp:
        work = Path(tmp)
        openapi_pkg = npm_pack("@octokit/openapi", OCTOKIT_OPENAPI, work)
        github_spec = json.loads((openapi_pkg / "generated" / "api.github.com.json").read_text())
        graphql_pkg = npm_pack("@octokit/graphql-schema", OCTOKIT_GRAPHQL_SCHEMA, work)
        shutil.copyfile(graphql_pkg / "schema.graphql", args.out / "github-schema.graphql")
        forgejo_spec = json.loads(forgejo_swagger(work).read_text())

    github = extract_github(github_spec)
    forgejo = extract_forgejo(forgejo_spec)
    for name, doc in (("github-rest.json", github), ("forgejo-rest.json", forgejo)):
        (args.out / name).write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    (args.out / "SOURCES.md").write_text(
        SOURCES.replace("{openapi}", OCTOKIT_OPENAPI)
        .replace("{graphql}", OCTOKIT_GRAPHQL_SCHEMA)
        .replace("{forgejo}", FORGEJO_API_CRATE)
        .replace("{gh_api}", github["source"]["api_version"])
        .replace("{fj_api}", forgejo["source"]["api_version"])
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
