//! "Did you mean ...?" hints for a misspelt name: the known name closest to it
//! by Levenshtein edit distance (V. I. Levenshtein, "Binary codes capable of
//! correcting deletions, insertions and reversals", 1966), or a known name it
//! begins. One rule for every name ccbench checks: the Python front end's
//! network profiles and their options use it through the binding
//! (`ccbench._ccsim.did_you_mean`).

/// "; did you mean 'cubic'?" for "cubc" among `known`, or "" when no known
/// name is close (see `closest`). Meant to follow "unknown X 'name'".
pub fn did_you_mean(name: &str, known: &[&str]) -> String {
    closest(name, known).map(|k| format!("; did you mean '{k}'?")).unwrap_or_default()
}

/// The known name closest to `name` (taken in lower case), if it is close:
/// at most max(2, a third of its length) edits away, or beginning with
/// `name`. The fewest edits win, then the alphabetically first.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let name = name.to_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&name, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.chars().count() / 3) || (!name.is_empty() && k.starts_with(&name)))
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance: the fewest single-character insertions, deletions
/// and substitutions that turn `a` into `b`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances_by_hand() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("cubc", "cubic"), 1);
        assert_eq!(edit_distance("umst", "umts"), 2);
    }

    #[test]
    fn close_names_and_prefixes_are_suggested() {
        let known = ["cubic", "reno", "newreno", "lte-edge", "lte-good", "westwood"];
        assert_eq!(did_you_mean("cubc", &known), "; did you mean 'cubic'?");
        assert_eq!(did_you_mean("CUBIC", &known), "; did you mean 'cubic'?");
        // The fewest edits win ("reno" is one away, "newreno" two), then the
        // alphabetically first.
        assert_eq!(closest("nreno", &known), Some("reno"));
        assert_eq!(closest("ab", &["abd", "abc"]), Some("abc"));
        assert_eq!(closest("lte-egde", &known), Some("lte-edge"));
        // Too far for an edit, but a prefix.
        assert_eq!(closest("west", &known), Some("westwood"));
        assert_eq!(closest("lte", &known), Some("lte-edge"));
        // Nothing close, and nothing for an empty name.
        assert_eq!(did_you_mean("bbr", &known), "");
        assert_eq!(did_you_mean("", &known), "");
        assert_eq!(did_you_mean("cubc", &[]), "");
    }
}
