//! One vocabulary for arguments across tools. The seeds fix different names for one thing (a
//! pull request is `pr`, `dependent_pr`, or `repository` + `pull_request_number`; a
//! comment's text is `comment` or `body`), so each tool accepts the other spellings as
//! aliases and reads them as its own name before its schema is checked. The aliases are in
//! no schema (tools/list stays as small as it is); they live in [`VOCABULARY`] only, and a
//! name no tool takes is answered with the name that was meant.

use resolve_pr_core::{PrRef, RepoRef};
use serde_json::{Map, Value};

/// One way of writing a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// One argument holding the whole thing.
    Name(&'static str),
    /// A pull request as `repository` (optional where a checkout names it) and
    /// `pull_request_number`.
    RepositoryAndNumber,
}

/// A thing tools name differently: every accepted spelling, and names agents guess for it
/// that no tool takes (answered with the tool's own name, not accepted).
#[derive(Debug)]
pub struct Term {
    pub what: &'static str,
    /// In order of preference: a tool's own spelling is the first its schema has.
    pub spellings: &'static [Spelling],
    pub guesses: &'static [&'static str],
}

/// Every term with more than one spelling. The only place aliases are declared.
pub const VOCABULARY: &[Term] = &[
    Term {
        what: "the pull request",
        spellings: &[
            Spelling::Name("pr"),
            // manage_stacked_prs: the pull request it restacks.
            Spelling::Name("dependent_pr"),
            Spelling::RepositoryAndNumber,
        ],
        guesses: &[
            "pr_number",
            "pull_number",
            "pull_request",
            "pull",
            "number",
            "pr_url",
            "url",
            "pr_id",
            "pull_request_id",
        ],
    },
    Term {
        what: "the comment's text",
        spellings: &[Spelling::Name("comment"), Spelling::Name("body")],
        guesses: &["text", "message", "content", "comment_body", "reply"],
    },
];

const REPOSITORY: &str = "repository";
const NUMBER: &str = "pull_request_number";

fn has(schema: &Value, name: &str) -> bool {
    schema.pointer(&format!("/properties/{name}")).is_some()
}

impl Spelling {
    fn in_schema(self, schema: &Value) -> bool {
        match self {
            Spelling::Name(name) => has(schema, name),
            Spelling::RepositoryAndNumber => has(schema, NUMBER),
        }
    }

    /// Whether `args` use this spelling (`repository` alone names no pull request).
    fn in_args(self, args: &Map<String, Value>) -> bool {
        match self {
            Spelling::Name(name) => args.contains_key(name),
            Spelling::RepositoryAndNumber => args.contains_key(NUMBER),
        }
    }

    /// `pr`, or `repository + pull_request_number`, as errors write it.
    fn words(self) -> String {
        match self {
            Spelling::Name(name) => format!("`{name}`"),
            Spelling::RepositoryAndNumber => format!("`{REPOSITORY}` + `{NUMBER}`"),
        }
    }
}

impl Term {
    /// The spelling a tool with this input schema takes, if it takes the term at all.
    pub fn spelling_in(&self, schema: &Value) -> Option<Spelling> {
        self.spellings.iter().copied().find(|s| s.in_schema(schema))
    }
}

/// `args` with every alias replaced by the tool's own name, and what was wrong with the
/// aliases given (an alias given with the name it stands for, a value that cannot be read).
pub(crate) fn canonical(
    tool: &str,
    schema: &Value,
    mut args: Map<String, Value>,
) -> (Map<String, Value>, Vec<String>) {
    let mut problems = Vec::new();
    for term in VOCABULARY {
        let Some(own) = term.spelling_in(schema) else {
            continue;
        };
        let given: Vec<Spelling> = term
            .spellings
            .iter()
            .copied()
            .filter(|s| *s != own && !s.in_schema(schema) && s.in_args(&args))
            .collect();
        let Some(&alias) = given.first() else {
            continue;
        };
        if own.in_args(&args) || given.len() > 1 {
            let mut named: Vec<String> = given.iter().map(|s| s.words()).collect();
            if own.in_args(&args) {
                named.insert(0, own.words());
            }
            problems.push(format!(
                "{} are one argument of {tool}, {} (its name is {}): give it once",
                named.join(" and "),
                term.what,
                own.words()
            ));
            for s in given {
                remove(&mut args, s);
            }
            continue;
        }
        if let Err(problem) = rename(tool, &mut args, alias, own) {
            problems.push(problem);
        }
    }
    (args, problems)
}

fn remove(args: &mut Map<String, Value>, spelling: Spelling) -> Option<Value> {
    match spelling {
        Spelling::Name(name) => args.remove(name),
        Spelling::RepositoryAndNumber => {
            args.remove(REPOSITORY);
            args.remove(NUMBER)
        }
    }
}

/// Moves the value given as `from` to `to`, converting between a pull request reference and
/// a repository with a number.
fn rename(
    tool: &str,
    args: &mut Map<String, Value>,
    from: Spelling,
    to: Spelling,
) -> Result<(), String> {
    match (from, to) {
        (Spelling::Name(from), Spelling::Name(to)) => {
            if let Some(value) = args.remove(from) {
                args.insert(to.to_owned(), value);
            }
            Ok(())
        }
        (Spelling::Name(from), Spelling::RepositoryAndNumber) => {
            let value = args.remove(from).unwrap_or(Value::Null);
            let (repository, number) = split(&value).map_err(|why| {
                format!(
                    "{from}: {why} ({tool} names the pull request by `{REPOSITORY}` and \
                     `{NUMBER}`; `{from}` is read as them)"
                )
            })?;
            if let Some(repository) = repository {
                args.insert(REPOSITORY.to_owned(), Value::String(repository));
            }
            args.insert(NUMBER.to_owned(), Value::from(number));
            Ok(())
        }
        (Spelling::RepositoryAndNumber, Spelling::Name(to)) => {
            let number = args.remove(NUMBER).unwrap_or(Value::Null);
            let repository = args.remove(REPOSITORY);
            let reference = join(repository.as_ref(), &number).map_err(|why| {
                format!(
                    "{why} ({tool} names the pull request as `{to}`, like \"owner/repo#123\"; \
                     `{REPOSITORY}` + `{NUMBER}` are read as it)"
                )
            })?;
            args.insert(to.to_owned(), Value::String(reference));
            Ok(())
        }
        (Spelling::RepositoryAndNumber, Spelling::RepositoryAndNumber) => Ok(()),
    }
}

/// A pull request reference as repository and number: `owner/repo#12` or a URL gives both, a
/// bare `12` or `#12` only the number.
fn split(value: &Value) -> Result<(Option<String>, u64), String> {
    let positive = |n: u64| {
        if n == 0 {
            Err("a pull request number is at least 1".to_owned())
        } else {
            Ok(n)
        }
    };
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(n) => Ok((None, positive(n)?)),
            None => Err(format!(
                "expected a reference like \"owner/repo#123\", got {n}"
            )),
        },
        Value::String(s) => {
            if let Ok(n) = s.trim().trim_start_matches('#').parse::<u64>() {
                return Ok((None, positive(n)?));
            }
            let pr = PrRef::parse(s).map_err(|e| e.error)?;
            Ok((Some(pr.repo.to_string()), pr.number))
        }
        other => Err(format!(
            "expected a reference like \"owner/repo#123\", got {}",
            crate::arguments::kind_of(other)
        )),
    }
}

/// `repository` and `pull_request_number` as one reference, `owner/repo#12`.
fn join(repository: Option<&Value>, number: &Value) -> Result<String, String> {
    let number = match number {
        Value::Number(n) => n.as_u64().filter(|n| *n > 0),
        Value::String(s) => s.trim().trim_start_matches('#').parse().ok(),
        _ => None,
    }
    .filter(|n| *n > 0)
    .ok_or_else(|| format!("{NUMBER}: expected a positive integer like 42, got {number}"))?;
    let repository = match repository {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(format!(
                "{REPOSITORY}: expected a string like \"owner/repo\", got {other}"
            ));
        }
        None => {
            return Err(format!(
                "{NUMBER} needs {REPOSITORY} here (the number alone names no repository)"
            ));
        }
    };
    let repo = RepoRef::parse(repository).map_err(|e| format!("{REPOSITORY}: {}", e.error))?;
    Ok(PrRef { repo, number }.to_string())
}

/// What a name the tool does not take was meant to be, as the end of a sentence: the tool's
/// own name for a term whose alias or guess it is, a near spelling of one of its arguments,
/// or the tools that do take it.
pub(crate) fn meant(tool: &str, schema: &Value, name: &str) -> Option<String> {
    for term in VOCABULARY {
        let named = term.guesses.contains(&name)
            || term
                .spellings
                .iter()
                .any(|s| matches!(s, Spelling::Name(n) if *n == name))
            || (name == REPOSITORY && term.spellings.contains(&Spelling::RepositoryAndNumber));
        if !named {
            continue;
        }
        if let Some(own) = term.spelling_in(schema) {
            return Some(format!("{} is {}", term.what, own.words()));
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object)?;
    let near = properties
        .keys()
        .map(|k| (strsim::damerau_levenshtein(name, k), k))
        .filter(|(d, k)| *d <= 2 && d * 4 <= k.len())
        .min();
    if let Some((_, k)) = near {
        return Some(format!("did you mean `{k}`?"));
    }
    let others: Vec<&str> = crate::registry::all()
        .into_iter()
        .filter(|t| t.name != tool && has(&t.input_schema, name))
        .map(|t| t.name)
        .collect();
    match others.len() {
        0 => None,
        1..=3 => Some(format!("`{name}` is an argument of {}", others.join(", "))),
        n => Some(format!(
            "`{name}` is an argument of {n} other tools ({}, ...)",
            others[..3].join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(properties: &[&str]) -> Value {
        let props: Map<String, Value> = properties
            .iter()
            .map(|p| ((*p).to_owned(), json!({"type": "string"})))
            .collect();
        json!({"type": "object", "properties": props})
    }

    fn normalized(properties: &[&str], args: Value) -> (Value, Vec<String>) {
        let Value::Object(args) = args else {
            unreachable!()
        };
        let (args, problems) = canonical("t", &schema(properties), args);
        (Value::Object(args), problems)
    }

    #[test]
    fn a_pull_request_reference_is_read_as_repository_and_number_and_back() {
        let number_tool = ["repository", "pull_request_number", "comment", "directory"];
        assert_eq!(
            normalized(&number_tool, json!({"pr": "acme/widgets#12", "body": "hi"})),
            (
                json!({"repository": "acme/widgets", "pull_request_number": 12, "comment": "hi"}),
                vec![]
            )
        );
        assert_eq!(
            normalized(
                &number_tool,
                json!({"pr": "https://ghe.example.com/acme/widgets/pull/3", "comment": "x"})
            ),
            (
                json!({"repository": "ghe.example.com/acme/widgets", "pull_request_number": 3, "comment": "x"}),
                vec![]
            )
        );
        assert_eq!(
            normalized(&number_tool, json!({"pr": "#7", "directory": "."})),
            (json!({"pull_request_number": 7, "directory": "."}), vec![])
        );
        assert_eq!(
            normalized(
                &["pr", "body"],
                json!({"repository": "acme/widgets", "pull_request_number": 12, "comment": "hi"})
            ),
            (json!({"pr": "acme/widgets#12", "body": "hi"}), vec![])
        );
        assert_eq!(
            normalized(
                &["base_pr", "dependent_pr"],
                json!({"pr": "acme/widgets#12", "base_pr": "acme/widgets#11"})
            ),
            (
                json!({"dependent_pr": "acme/widgets#12", "base_pr": "acme/widgets#11"}),
                vec![]
            )
        );
    }

    #[test]
    fn an_alias_with_its_own_name_or_an_unreadable_alias_is_a_problem_naming_both() {
        let (_, problems) = normalized(&["pr", "body"], json!({"body": "a", "comment": "b"}));
        assert_eq!(
            problems,
            [
                "`body` and `comment` are one argument of t, the comment's text (its name is `body`): give it once"
            ]
        );
        let (_, problems) = normalized(
            &["pr"],
            json!({"pr": "a/b#1", "repository": "a/b", "pull_request_number": 1}),
        );
        assert!(problems[0].starts_with("`pr` and `repository` + `pull_request_number` are one argument of t, the pull request"), "{problems:?}");
        let (_, problems) = normalized(&["pr"], json!({"pull_request_number": 4}));
        assert!(
            problems[0].starts_with("pull_request_number needs repository here"),
            "{problems:?}"
        );
        let (_, problems) = normalized(
            &["repository", "pull_request_number"],
            json!({"pr": "nope"}),
        );
        assert!(problems[0].starts_with("pr: "), "{problems:?}");
        assert!(
            problems[0].contains("`repository` and `pull_request_number`"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_name_no_tool_takes_is_answered_with_the_one_meant() {
        let pr_tool = schema(&["pr", "body", "thread_id"]);
        assert_eq!(
            meant("t", &pr_tool, "pr_number").as_deref(),
            Some("the pull request is `pr`")
        );
        assert_eq!(
            meant("t", &pr_tool, "text").as_deref(),
            Some("the comment's text is `body`")
        );
        assert_eq!(
            meant("t", &pr_tool, "thread_ids").as_deref(),
            Some("did you mean `thread_id`?")
        );
        let number_tool = schema(&["repository", "pull_request_number", "comment"]);
        assert_eq!(
            meant("t", &number_tool, "pull_number").as_deref(),
            Some("the pull request is `repository` + `pull_request_number`")
        );
        assert_eq!(meant("t", &number_tool, "zzzzzz"), None);
    }
}
