//! Which of a run's sampled tables it records. The summary tables (flows,
//! links, sources) always come out, and the same whatever else is recorded:
//! the samplers only read the simulation. A sample still takes its place in
//! the event order and brings the links up to date when nothing is recorded
//! at it, so leaving a table out changes no event of the run.
//!
//! A campaign run whose tables are not kept records none of them: on a slow
//! link, taking the rows every 10 ms is most of a run's cost.

/// The tables of a run, in the order the front end saves them.
pub const TABLES: [&str; 8] =
    ["flows", "series", "cc_state", "rtt", "links", "link_series", "sources", "source_series"];

/// The tables every run records.
pub const SUMMARY_TABLES: [&str; 3] = ["flows", "links", "sources"];

/// The sampled tables a run records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// `series` and `cc_state` (one sampler writes both).
    pub flow_series: bool,
    pub rtt: bool,
    pub link_series: bool,
    pub source_series: bool,
}

impl Recorded {
    pub const ALL: Recorded = Recorded { flow_series: true, rtt: true, link_series: true, source_series: true };
    pub const SUMMARIES_ONLY: Recorded =
        Recorded { flow_series: false, rtt: false, link_series: false, source_series: false };

    /// The tables named in `names` (any of TABLES; the summary tables are
    /// recorded whether named or not). An unknown name is an error that
    /// names it and the tables there are.
    pub fn of_tables<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Recorded, String> {
        let mut r = Recorded::SUMMARIES_ONLY;
        for name in names {
            match name {
                "series" | "cc_state" => r.flow_series = true,
                "rtt" => r.rtt = true,
                "link_series" => r.link_series = true,
                "source_series" => r.source_series = true,
                _ if SUMMARY_TABLES.contains(&name) => {}
                _ => return Err(format!("unknown table \"{name}\"; the tables: {}", TABLES.join(", "))),
            }
        }
        Ok(r)
    }

    /// Whether table `name` (one of TABLES) is recorded.
    pub fn records(&self, name: &str) -> bool {
        match name {
            "series" | "cc_state" => self.flow_series,
            "rtt" => self.rtt,
            "link_series" => self.link_series,
            "source_series" => self.source_series,
            _ => SUMMARY_TABLES.contains(&name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_tables_are_recorded_and_the_summaries_always() {
        let r = Recorded::of_tables(["series", "rtt"]).unwrap();
        let recorded: Vec<&str> = TABLES.into_iter().filter(|t| r.records(t)).collect();
        assert_eq!(recorded, ["flows", "series", "cc_state", "rtt", "links", "sources"]);
        assert_eq!(Recorded::of_tables([]).unwrap(), Recorded::SUMMARIES_ONLY);
        assert_eq!(Recorded::of_tables(TABLES).unwrap(), Recorded::ALL);
        assert!(TABLES.into_iter().all(|t| Recorded::ALL.records(t)));
    }

    #[test]
    fn an_unknown_table_is_named_with_the_tables_there_are() {
        let e = Recorded::of_tables(["flows", "seris"]).unwrap_err();
        assert!(e.contains("\"seris\""), "{e}");
        assert!(e.contains("flows, series, cc_state, rtt, links, link_series, sources, source_series"), "{e}");
    }
}
