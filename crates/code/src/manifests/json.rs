//! JSON with the byte spans of its values, to edit a manifest at exactly the place a value
//! is (package.json keeps its layout). Strict JSON, as npm reads it.

/// A value and where it is in the text (`start..end`).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub value: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Each member's key, where its key starts, and its value.
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    String(String),
    Other,
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Kind::Object(members) => members
                .iter()
                .rev()
                .find(|(k, _, _)| k == key)
                .map(|(_, _, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The document's root value with its spans, or where it stops being JSON.
pub fn parse(text: &str) -> Result<Node, String> {
    // serde_json says whether it is JSON at all, with its own words.
    serde_json::from_str::<serde_json::Value>(text).map_err(|e| e.to_string())?;
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    p.value()
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Node, String> {
        let start = self.i;
        let value = match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b'}') => {
                            self.i += 1;
                            break;
                        }
                        Some(b',') => {
                            self.i += 1;
                            continue;
                        }
                        Some(b'"') => {
                            let at = self.i;
                            let key = self.string()?;
                            self.ws();
                            self.i += 1; // ':'
                            self.ws();
                            let v = self.value()?;
                            members.push((key, at, v));
                        }
                        _ => return Err(format!("unexpected byte at {}", self.i)),
                    }
                }
                Kind::Object(members)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        Some(b',') => {
                            self.i += 1;
                        }
                        Some(_) => items.push(self.value()?),
                        None => return Err("unterminated array".into()),
                    }
                }
                Kind::Array(items)
            }
            Some(b'"') => Kind::String(self.string()?),
            Some(_) => {
                while self.i < self.s.len()
                    && !matches!(self.s[self.i], b',' | b'}' | b']')
                    && !self.s[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
                Kind::Other
            }
            None => return Err("unexpected end".into()),
        };
        Ok(Node {
            start,
            end: self.i,
            value,
        })
    }

    fn string(&mut self) -> Result<String, String> {
        let start = self.i;
        self.i += 1;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return serde_json::from_str(&self.text[start..self.i])
                        .map_err(|e| e.to_string());
                }
                _ => self.i += 1,
            }
        }
        Err("unterminated string".into())
    }
}

/// A JSON string literal of `s`.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `text` with `item` (JSON text) appended to the array at `array`, laid out as its items
/// are: on lines of their own with the same indentation, or on one line.
pub fn append(text: &str, array: &Node, item: &str) -> String {
    let Kind::Array(items) = &array.value else {
        return text.to_owned();
    };
    let spans: Vec<(usize, usize)> = items.iter().map(|n| (n.start, n.end)).collect();
    append_at(text, array, &spans, item)
}

/// `text` with the member `"key": value` (JSON text of the value) added last to the object
/// at `object`, in its layout.
pub fn append_member(text: &str, object: &Node, key: &str, value: &str) -> String {
    let Kind::Object(members) = &object.value else {
        return text.to_owned();
    };
    let spans: Vec<(usize, usize)> = members.iter().map(|(_, at, v)| (*at, v.end)).collect();
    append_at(text, object, &spans, &format!("{}: {value}", quote(key)))
}

/// The indentation one level of the document adds: its least indented line's.
fn indent_unit(text: &str) -> &'static str {
    let least = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .filter(|n| *n > 0)
        .min();
    if text.lines().any(|l| l.starts_with('\t')) {
        "\t"
    } else if least == Some(4) {
        "    "
    } else {
        "  "
    }
}

fn append_at(text: &str, container: &Node, spans: &[(usize, usize)], item: &str) -> String {
    match spans.last() {
        Some(&(last_start, last_end)) => {
            // The separator the container uses between items (or before its first).
            let sep = if spans.len() >= 2 {
                let prev_end = spans[spans.len() - 2].1;
                text[prev_end..last_start]
                    .trim_start()
                    .trim_start_matches(',')
                    .to_owned()
            } else {
                let gap = &text[container.start + 1..last_start];
                if gap.contains('\n') {
                    gap.to_owned()
                } else {
                    " ".to_owned()
                }
            };
            format!("{},{sep}{item}{}", &text[..last_end], &text[last_end..])
        }
        None => {
            // Empty: on lines of their own, one level in from the line it is on.
            let line_start = text[..container.start].rfind('\n').map_or(0, |i| i + 1);
            let indent: String = text[line_start..]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            let unit = indent_unit(text);
            let (open, close) = (
                &text[container.start..container.start + 1],
                &text[container.end - 1..container.end],
            );
            format!(
                "{}{open}\n{indent}{unit}{item}\n{indent}{close}{}",
                &text[..container.start],
                &text[container.end..]
            )
        }
    }
}

/// `text` without the array item at `index` and the comma that joined it.
pub fn remove(text: &str, array: &Node, index: usize) -> String {
    let Kind::Array(items) = &array.value else {
        return text.to_owned();
    };
    let item = &items[index];
    let (from, to) = if items.len() == 1 {
        // The array keeps its brackets, empty.
        let inner = &text[array.start + 1..array.end - 1];
        if inner.contains('\n') {
            (item.start, item.end)
        } else {
            (array.start + 1, array.end - 1)
        }
    } else if index == 0 {
        (item.start, items[1].start)
    } else {
        (items[index - 1].end, item.end)
    };
    let mut out = format!("{}{}", &text[..from], &text[to..]);
    if items.len() == 1 && text[array.start + 1..array.end - 1].contains('\n') {
        // `[\n  "x"\n]` becomes `[]`.
        let open = array.start;
        let close = out[open..]
            .find(']')
            .map(|i| open + i + 1)
            .unwrap_or(out.len());
        out = format!("{}[]{}", &out[..open], &out[close..]);
    }
    out
}

/// `text` with the string at `node` replaced by `value`.
pub fn replace_string(text: &str, node: &Node, value: &str) -> String {
    format!(
        "{}{}{}",
        &text[..node.start],
        quote(value),
        &text[node.end..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_added_and_removed_in_the_arrays_layout() {
        let text = "{\n  \"name\": \"root\",\n  \"workspaces\": [\n    \"packages/a\",\n    \"packages/b\"\n  ]\n}\n";
        let root = parse(text).unwrap();
        let added = append(text, root.get("workspaces").unwrap(), "\"packages/c\"");
        assert_eq!(
            added,
            "{\n  \"name\": \"root\",\n  \"workspaces\": [\n    \"packages/a\",\n    \"packages/b\",\n    \"packages/c\"\n  ]\n}\n"
        );
        let root = parse(&added).unwrap();
        let removed = remove(&added, root.get("workspaces").unwrap(), 0);
        assert_eq!(
            removed,
            "{\n  \"name\": \"root\",\n  \"workspaces\": [\n    \"packages/b\",\n    \"packages/c\"\n  ]\n}\n"
        );
        let one = "{\"workspaces\": [\"a\"]}";
        let root = parse(one).unwrap();
        assert_eq!(
            append(one, root.get("workspaces").unwrap(), "\"b\""),
            "{\"workspaces\": [\"a\", \"b\"]}"
        );
        assert_eq!(
            remove(one, root.get("workspaces").unwrap(), 0),
            "{\"workspaces\": []}"
        );
        let empty = "{\n  \"workspaces\": []\n}\n";
        let root = parse(empty).unwrap();
        assert_eq!(
            append(empty, root.get("workspaces").unwrap(), "\"a\""),
            "{\n  \"workspaces\": [\n    \"a\"\n  ]\n}\n"
        );
    }

    #[test]
    fn spans_hold_escaped_strings_and_nested_values() {
        let text = r#"{"a": {"b": ["x\"y", 1, true, null]}, "c": -1.5e3}"#;
        let root = parse(text).unwrap();
        let b = root.get("a").unwrap().get("b").unwrap();
        let Kind::Array(items) = &b.value else {
            panic!()
        };
        assert_eq!(items[0].as_str(), Some("x\"y"));
        assert_eq!(&text[items[1].start..items[1].end], "1");
        assert_eq!(
            &text[root.get("c").unwrap().start..root.get("c").unwrap().end],
            "-1.5e3"
        );
        assert!(parse("{").is_err());
    }
}
