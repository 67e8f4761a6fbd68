//! Traces handed to the core already read, so a scenario's text need not
//! carry them.
//!
//! A measured trace is hundreds of thousands of numbers: written into every
//! run's JSON text, it is most of what the core reads (about 10 ms for a
//! 4 MB trace, against well under a millisecond for the rest of the
//! scenario). A front end that runs many scenarios over the same traces (a
//! campaign worker) reads each trace once into a `SharedTrace`; for the
//! duration of `with_shared_traces`, a scenario's `opportunities_ms` may then
//! be the string `"shared:N"`, which stands for the N-th of those traces, and
//! a scenario written holds the same stand-in for it. The scenario read is the
//! same as if the list were written out; the stand-in is between a front end
//! and the core only, and means nothing elsewhere.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Serialize, Serializer};
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

/// The prefix of a stand-in for a shared trace: `"shared:0"`.
pub const STAND_IN_PREFIX: &str = "shared:";

thread_local! {
    /// The traces `with_shared_traces` handed over, while its closure runs.
    static SHARED: RefCell<Vec<Arc<[u64]>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `read` (which reads or writes scenarios) with `traces` standing
/// behind the stand-ins `"shared:0"`, `"shared:1"`, ... and forgets them
/// afterwards, also if `read` panics.
pub fn with_shared_traces<R>(traces: Vec<Arc<[u64]>>, read: impl FnOnce() -> R) -> R {
    struct Forget;
    impl Drop for Forget {
        fn drop(&mut self) {
            SHARED.with(|s| s.borrow_mut().clear());
        }
    }
    SHARED.with(|s| *s.borrow_mut() = traces);
    let _forget = Forget;
    read()
}

/// Reads a trace's `opportunities_ms`: a list of numbers, or a stand-in for
/// a trace handed over by `with_shared_traces` (shared, not copied).
pub(super) fn deserialize_opportunities<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<[u64]>, D::Error> {
    struct Opportunities;
    impl<'de> Visitor<'de> for Opportunities {
        type Value = Arc<[u64]>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of millisecond timestamps")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Arc<[u64]>, A::Error> {
            let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(ms) = seq.next_element::<u64>()? {
                v.push(ms);
            }
            Ok(v.into())
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Arc<[u64]>, E> {
            let shared = s
                .strip_prefix(STAND_IN_PREFIX)
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| SHARED.with(|t| t.borrow().get(n).cloned()));
            shared.ok_or_else(|| E::invalid_type(de::Unexpected::Str(s), &self))
        }
    }
    d.deserialize_any(Opportunities)
}

/// Writes a trace's `opportunities_ms`: the stand-in of a trace handed over
/// by `with_shared_traces` (the very one, not an equal list), else the list.
pub(super) fn serialize_opportunities<S: Serializer>(o: &Arc<[u64]>, s: S) -> Result<S::Ok, S::Error> {
    match SHARED.with(|t| t.borrow().iter().position(|shared| Arc::ptr_eq(shared, o))) {
        Some(n) => s.serialize_str(&format!("{STAND_IN_PREFIX}{n}")),
        None => o.serialize(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    fn scenario(opportunities: &str) -> String {
        format!(
            r#"{{"duration": 1, "downlink": {{"trace": {{"opportunities_ms": {opportunities}}}, "delay": "10ms"}},
                "flows": [{{"cc": "reno"}}]}}"#
        )
    }

    fn opportunities(s: &Scenario) -> &Arc<[u64]> {
        &s.downlink.as_ref().unwrap().trace.as_ref().unwrap().opportunities_ms
    }

    #[test]
    fn a_stand_in_reads_as_the_trace_handed_over_and_shares_it() {
        let trace: Arc<[u64]> = vec![1, 2, 2, 5].into();
        let s =
            with_shared_traces(vec![vec![7].into(), trace.clone()], || Scenario::from_json(&scenario(r#""shared:1""#)))
                .unwrap();
        assert!(Arc::ptr_eq(opportunities(&s), &trace));
        let written_out = Scenario::from_json(&scenario("[1, 2, 2, 5]")).unwrap();
        assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string(&written_out).unwrap());
    }

    #[test]
    fn a_scenario_written_keeps_the_stand_in_of_a_shared_trace_and_writes_out_any_other() {
        let trace: Arc<[u64]> = vec![1, 2, 2, 5].into();
        let text = scenario(r#""shared:0""#);
        let written = with_shared_traces(vec![trace.clone()], || {
            serde_json::to_value(Scenario::from_json(&text).unwrap()).unwrap()
        });
        assert_eq!(written["downlink"]["trace"]["opportunities_ms"], "shared:0");
        let equal_not_shared = with_shared_traces(vec![vec![1, 2, 2, 5].into()], || {
            serde_json::to_value(Scenario::from_json(&scenario("[1, 2, 2, 5]")).unwrap()).unwrap()
        });
        assert_eq!(equal_not_shared["downlink"]["trace"]["opportunities_ms"], serde_json::json!([1, 2, 2, 5]));
        let s = with_shared_traces(vec![trace], || Scenario::from_json(&text).unwrap());
        assert_eq!(
            serde_json::to_value(&s).unwrap()["downlink"]["trace"]["opportunities_ms"],
            serde_json::json!([1, 2, 2, 5])
        );
    }

    #[test]
    fn a_stand_in_without_its_trace_is_an_error_naming_the_field() {
        let text = scenario(r#""shared:0""#);
        for e in [
            Scenario::from_json(&text).unwrap_err(),
            with_shared_traces(vec![vec![1].into()], || Scenario::from_json(&scenario(r#""shared:1""#))).unwrap_err(),
        ] {
            assert_eq!(e.path, "downlink.trace.opportunities_ms", "{e}");
            assert!(e.message.contains("list of millisecond timestamps"), "{e}");
        }
        // Forgotten once read: the same text fails afterwards.
        assert!(with_shared_traces(vec![vec![1].into()], || Scenario::from_json(&text)).is_ok());
        assert!(Scenario::from_json(&text).is_err());
    }

    #[test]
    fn a_trace_written_out_is_checked_as_before() {
        let e = Scenario::from_json(&scenario("[1, -2]")).unwrap_err();
        assert_eq!(e.path, "downlink.trace.opportunities_ms[1]", "{e}");
        let e = with_shared_traces(vec![vec![5, 3].into()], || Scenario::from_json(&scenario(r#""shared:0""#)))
            .unwrap_err();
        assert!(e.path.starts_with("downlink.trace.opportunities_ms"), "{e}");
        assert!(e.message.contains("3 comes after 5"), "{e}");
    }
}
