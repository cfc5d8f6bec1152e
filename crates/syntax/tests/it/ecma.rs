//! TypeScript, TSX and JavaScript exports, on real-shaped code.

use resolve_pr_syntax::{ApiChange, Dialect, compare, exports};

fn listing(lang: Dialect, source: &str) -> Vec<String> {
    exports(lang, source)
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

const TS: &str = r#"import { Readable } from "node:stream";
import type { Logger } from "./log";

/** Options of a client. */
export interface ClientOptions {
  baseUrl: string;
  retries?: number;
}

export type Method = "GET" | "POST";

export enum Level { Debug, Info }

/** Overloads. */
export function request(url: string): Promise<Response>;
export function request(url: string, init: RequestInit): Promise<Response>;
export function request(url: string, init?: RequestInit): Promise<Response> {
  return fetch(url, init);
}

export const DEFAULT_TIMEOUT: number = 30_000;
export let counter = 0;
export const retry = async<T>(fn: () => Promise<T>, times = 3): Promise<T> => {
  return fn();
};

export class Client<T> extends Base implements Closable {
  private readonly secret: string;
  protected cache = new Map();
  #pending = 0;
  public readonly name: string = "client";
  static instances = 0;

  constructor(private opts: ClientOptions) {
    super();
  }

  async get(path: string): Promise<T> {
    return this.send("GET", path);
  }

  private send(method: Method, path: string): Promise<T> {
    return fetch(path) as never;
  }

  get size(): number { return 0; }
}

abstract class Internal {}

function helper(a: number) { return a; }
const local = 1;

export { helper, local as aliased };
export { Stream as Str } from "./stream";
export * from "./types";
export * as codecs from "./codecs";
export declare function declared(x: number): void;
export namespace Api { export const version = 1; }
export default Client;
"#;

#[test]
fn typescript_exports_and_class_members() {
    let got = listing(Dialect::TypeScript, TS);
    let expected = [
        "interface ClientOptions | export interface ClientOptions { baseUrl: string; retries?: number; } @5",
        "type Method | export type Method = \"GET\" | \"POST\" @10",
        "enum Level | export enum Level { Debug, Info } @12",
        "function request | export function request(url: string): Promise<Response> @15",
        "function request | export function request(url: string, init: RequestInit): Promise<Response> @16",
        "function request | export function request(url: string, init?: RequestInit): Promise<Response> @17",
        "const DEFAULT_TIMEOUT | export const DEFAULT_TIMEOUT: number @21",
        "variable counter | export let counter @22",
        "function retry | export const retry = async<T>(fn: () => Promise<T>, times = 3): Promise<T> => @23",
        "class Client | export class Client<T> extends Base implements Closable @27",
        "variable Client.name | public readonly name: string @31",
        "variable Client.instances | static instances @32",
        "method Client.constructor | constructor(private opts: ClientOptions) @34",
        "method Client.get | async get(path: string): Promise<T> @38",
        "method Client.size | get size(): number @46",
        "function helper | function helper(a: number) @54",
        "const aliased | const local @54",
        "reexport Str | export { Stream as Str } from \"./stream\" @55",
        "reexport * from \"./types\" | export * from \"./types\" @56",
        "reexport codecs | export * as codecs from \"./codecs\" @57",
        "function declared | export declare function declared(x: number): void @58",
        "module Api | export namespace Api @59",
        "class default | export default class Client<T> extends Base implements Closable @60",
    ];
    assert_eq!(got, expected, "{got:#?}");
}

#[test]
fn javascript_and_tsx() {
    let js = r#"export function add(a, b = 2) { return a + b; }
export default function () {}
export class Point {
  #secret = 1;
  static origin = new Point();
  norm() { return 0; }
  #hidden() {}
}
let q = 1;
export { q as default2, q };
export const { a, b: renamed } = obj;
"#;
    assert_eq!(
        listing(Dialect::JavaScript, js),
        [
            "function add | export function add(a, b = 2) @1",
            "function default | export default function() @2",
            "class Point | export class Point @3",
            "variable Point.origin | static origin @5",
            "method Point.norm | norm() @6",
            "variable default2 | let q @10",
            "variable q | let q @10",
            "const a | export const a @11",
            "const renamed | export const renamed @11",
        ]
    );
    let tsx = r#"import React from "react";
export interface Props { title: string }
export function Card({ title }: Props): JSX.Element {
  return <div className="card">{title}</div>;
}
"#;
    assert_eq!(
        listing(Dialect::Tsx, tsx),
        [
            "interface Props | export interface Props { title: string } @2",
            "function Card | export function Card({ title }: Props): JSX.Element @3",
        ]
    );
}

#[test]
fn overloads_and_member_changes_compare_by_name() {
    let before = r#"
export function parse(s: string): Ast;
export function parse(s: string, strict: boolean): Ast;
export function parse(s: string, strict?: boolean): Ast { return null as any; }
export class Lexer {
  next(): Token { return null as any; }
  peek(): Token { return null as any; }
}
"#;
    let after = r#"
export function parse(s: string): Ast;
export function parse(s: string, strict?: boolean): Ast { return {} as any; }
export class Lexer {
  // A comment and a new body are not changes.
  next(): Token { return this.read(); }
  peek(n: number): Token { return null as any; }
  private read(): Token { return null as any; }
}
"#;
    let got: Vec<String> = compare(Dialect::TypeScript, before, after)
        .unwrap()
        .into_iter()
        .map(|c| match c {
            ApiChange::Removed { before } => format!("removed {}", before.signature),
            ApiChange::Changed { before, after } => {
                format!("changed {} => {}", before.signature, after.signature)
            }
            ApiChange::Added { after } => format!("added {}", after.signature),
        })
        .collect();
    assert_eq!(
        got,
        [
            "removed export function parse(s: string, strict: boolean): Ast",
            "changed peek(): Token => peek(n: number): Token",
        ]
    );
}

#[test]
fn syntax_errors_are_reported() {
    let err = exports(Dialect::TypeScript, "export function f(a: string {\n}\n").unwrap_err();
    assert!(
        matches!(err, resolve_pr_syntax::SyntaxError::Invalid { line: 1, .. }),
        "{err:?}"
    );
    // TypeScript syntax is an error for the JavaScript grammar.
    assert!(exports(Dialect::JavaScript, "export interface I { a: string }\n").is_err());
}

#[test]
fn default_exports_of_expressions_name_their_kind_not_their_value() {
    let v1 = "export default { name: 'card', props: ['a'] };\n";
    let v2 = "export default { name: 'card', props: ['a', 'b'], data() { return {} } };\n";
    assert_eq!(
        listing(Dialect::JavaScript, v1),
        ["variable default | export default <object> @1"]
    );
    assert_eq!(compare(Dialect::JavaScript, v1, v2).unwrap(), Vec::new());
    assert_eq!(
        listing(
            Dialect::TypeScript,
            "export default (a: number) => a * 2;\n"
        ),
        ["function default | export default (a: number) => @1"]
    );
    assert_eq!(
        listing(
            Dialect::JavaScript,
            "import x from './x';\nexport default x;\n"
        ),
        ["reexport default | export default x @2"]
    );
}

#[test]
fn commonjs_exports() {
    let v1 = r#"'use strict';
function helper(a, b) { return a + b; }
module.exports = { helper, run: helper, stop(x) { return x; }, VERSION: '1.0' };
exports.start = function (port) {};
module.exports.close = async (server) => {};
"#;
    assert_eq!(
        listing(Dialect::JavaScript, v1),
        [
            "function helper | module.exports.helper = function helper(a, b) @3",
            "function run | module.exports.run = function helper(a, b) @3",
            "function stop | module.exports.stop(x) @3",
            "variable VERSION | module.exports.VERSION = <string> @3",
            "function start | exports.start = function(port) @4",
            "function close | module.exports.close = async(server) => @5",
        ]
    );
    let v2 = "function helper(a) { return a; }\nmodule.exports = { helper };\n";
    let got: Vec<String> = compare(Dialect::JavaScript, v1, v2)
        .unwrap()
        .into_iter()
        .map(|c| match c {
            ApiChange::Removed { before } => format!("removed {}", before.name),
            ApiChange::Changed { before, .. } => format!("changed {}", before.name),
            ApiChange::Added { after } => format!("added {}", after.name),
        })
        .collect();
    assert_eq!(
        got,
        [
            "changed helper",
            "removed run",
            "removed stop",
            "removed VERSION",
            "removed start",
            "removed close"
        ]
    );
    assert_eq!(
        listing(
            Dialect::JavaScript,
            "module.exports = class Queue { push(x) {} };\n"
        ),
        ["class module.exports | module.exports = class Queue @1"]
    );
}
