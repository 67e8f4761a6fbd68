//! The scenario error (one field, one message) and the helpers that word
//! messages: "did you mean" suggestions and readable serde messages.

use crate::cc;
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

pub(super) fn suggestion(name: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (edit_distance(&name.to_ascii_lowercase(), k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min()
        .map(|(_, k)| format!("; did you mean '{k}'?"))
        .unwrap_or_default()
}

/// Levenshtein distance, for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// serde's messages carry Rust-isms; keep them readable for TOML users.
pub(super) fn clean_serde_message(m: &str) -> String {
    let m = m.split(" at line ").next().unwrap_or(m);
    m.replace("variant", "value").replace('`', "'")
}
