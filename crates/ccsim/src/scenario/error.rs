//! The scenario error (one field, one message) and the helpers that word
//! messages: "did you mean" suggestions (crate::suggest) and readable serde messages.

use crate::cc;
pub(super) use crate::suggest::did_you_mean as suggestion;
use std::fmt;

/// One clear error about one field.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

pub(super) fn err<T>(path: impl Into<String>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { path: path.into(), message: message.into() })
}

/// "unknown algorithm 'cubc'; did you mean 'cubic'? known: ..."
pub fn unknown_algorithm_message(name: &str) -> String {
    let known: Vec<&str> = cc::registry().iter().map(|a| a.name).collect();
    format!("unknown algorithm '{name}'{}; known: {}", suggestion(name, &known), known.join(", "))
}

/// "; case matters: write 'red'" when `value` is one of the `known`
/// keywords in other letters' case, else "". Keywords (queue kinds,
/// directions, "all" and "none", ...) are case-sensitive, as in the schema;
/// algorithm names, deliberately, are not (README). `quote`: the message's.
pub(super) fn case_note(value: &str, known: &[&str], quote: char) -> String {
    match known.iter().find(|k| value != **k && k.eq_ignore_ascii_case(value)) {
        Some(k) => format!("; case matters: write {quote}{k}{quote}"),
        None => String::new(),
    }
}

/// serde's messages carry Rust-isms; keep them readable for TOML users.
pub(super) fn clean_serde_message(m: &str) -> String {
    let m = m.split(" at line ").next().unwrap_or(m);
    let m = m.replace("variant", "value").replace('`', "'");
    // "unknown value 'RED', expected one of 'droptail', 'red', 'codel'" (or "'down' or 'up'").
    if let Some((value, expected)) = m.strip_prefix("unknown value '").and_then(|r| r.split_once("', expected ")) {
        let known: Vec<&str> = expected.split('\'').skip(1).step_by(2).collect();
        return format!("{m}{}", case_note(value, &known, '\''));
    }
    // Rust's integer type names say nothing to a user: name the range.
    for (rust, words) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number, at least 0"),
        ("expected i32", "expected a whole number from -2147483648 to 2147483647"),
    ] {
        if let Some(head) = m.strip_suffix(rust) {
            return format!("{head}{words}");
        }
    }
    m
}
