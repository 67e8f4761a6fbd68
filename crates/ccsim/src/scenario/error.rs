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

/// serde's messages carry Rust-isms; keep them readable for TOML users.
pub(super) fn clean_serde_message(m: &str) -> String {
    let m = m.split(" at line ").next().unwrap_or(m);
    let m = m.replace("variant", "value").replace('`', "'");
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
