//! An algorithm's parameters: their typed descriptors (declared in each
//! algorithm's `Info::params`), the check of a scenario's `cc_params`
//! against them, and the values a flow's algorithm reads when it is built.

use super::Info;
use crate::rng::Rng;
use std::collections::BTreeMap;

/// A real-valued parameter, with its default and allowed range.
#[derive(Clone, Copy, Debug)]
pub struct FloatParam {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub doc: &'static str,
}

/// An integer parameter (a count, a shift, a number of segments), with its
/// default and allowed range.
#[derive(Clone, Copy, Debug)]
pub struct IntParam {
    pub name: &'static str,
    pub default: i64,
    pub min: i64,
    pub max: i64,
    pub doc: &'static str,
}

/// An on/off parameter. Scenario files give it as 0 or 1 (`cc_params` values are numbers).
#[derive(Clone, Copy, Debug)]
pub struct BoolParam {
    pub name: &'static str,
    pub default: bool,
    pub doc: &'static str,
}

/// A parameter of an algorithm, as listed in its `Info::params`. Each
/// algorithm declares its descriptors as `const`s (in a `param` module) and
/// reads them with the getter of their kind (`Params::float`, `int`,
/// `flag`), so a read names a declared, typed descriptor, never a string.
#[derive(Clone, Copy, Debug)]
pub enum Param {
    Float(&'static FloatParam),
    Int(&'static IntParam),
    Bool(&'static BoolParam),
}

impl Param {
    pub fn name(&self) -> &'static str {
        match self {
            Param::Float(p) => p.name,
            Param::Int(p) => p.name,
            Param::Bool(p) => p.name,
        }
    }

    pub fn doc(&self) -> &'static str {
        match self {
            Param::Float(p) => p.doc,
            Param::Int(p) => p.doc,
            Param::Bool(p) => p.doc,
        }
    }

    /// "float", "integer" or "boolean".
    pub fn kind(&self) -> &'static str {
        match self {
            Param::Float(_) => "float",
            Param::Int(_) => "integer",
            Param::Bool(_) => "boolean",
        }
    }

    /// What values are allowed, in words ("an integer from 0 to 1000").
    pub fn allowed(&self) -> String {
        match self {
            Param::Float(p) => format!("a number from {} to {}", p.min, p.max),
            Param::Int(p) => format!("an integer from {} to {}", p.min, p.max),
            Param::Bool(_) => "0 or 1 (a boolean)".to_string(),
        }
    }

    /// Whether `value` (as a scenario gives it) is allowed.
    pub fn accepts(&self, value: f64) -> bool {
        match self {
            Param::Float(p) => (p.min..=p.max).contains(&value),
            Param::Int(p) => value.fract() == 0.0 && (p.min as f64..=p.max as f64).contains(&value),
            Param::Bool(_) => value == 0.0 || value == 1.0,
        }
    }
}

/// A `cc_params` entry that the algorithm does not accept: the parameter
/// name and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub name: String,
    pub message: String,
}

/// Checks the `cc_params` of a flow of algorithm `info` (when the scenario
/// is validated): every name is declared and every value of its kind and in
/// its range. `hint(name, known)` may add a "did you mean" to an unknown name.
pub fn check_params(
    info: &Info,
    values: &BTreeMap<String, f64>,
    hint: impl Fn(&str, &[&str]) -> String,
) -> Result<(), ParamError> {
    for (name, value) in values {
        let Some(param) = info.params.iter().find(|p| p.name() == name) else {
            let known: Vec<&str> = info.params.iter().map(|p| p.name()).collect();
            let message = if known.is_empty() {
                format!("{} has no parameters", info.name)
            } else {
                format!(
                    "{} has no parameter '{name}'{}; its parameters: {}",
                    info.name,
                    hint(name, &known),
                    known.join(", ")
                )
            };
            return Err(ParamError { name: name.clone(), message });
        };
        if !param.accepts(*value) {
            return Err(ParamError {
                name: name.clone(),
                message: format!("{value} is not allowed; {} takes {}", param.name(), param.allowed()),
            });
        }
    }
    Ok(())
}

/// Parameter values for one flow: the user's, else the reference defaults.
pub struct Params<'a> {
    info: &'a Info,
    values: &'a BTreeMap<String, f64>,
    mss: u32,
    run_seed: u64,
    flow: u32,
}

/// Component ids of the algorithms' random streams: `CC_STREAM_BASE + flow`
/// (disjoint from the ids in `crate::rng::stream`).
pub const CC_STREAM_BASE: u64 = 0xCC00_0000;

impl<'a> Params<'a> {
    pub fn new(info: &'a Info, values: &'a BTreeMap<String, f64>, mss: u32) -> Params<'a> {
        Params { info, values, mss, run_seed: 0, flow: 0 }
    }

    /// The values for flow `flow` of a run seeded with `run_seed` (`build_for_flow`).
    pub(super) fn for_flow(
        info: &'a Info,
        values: &'a BTreeMap<String, f64>,
        mss: u32,
        run_seed: u64,
        flow: u32,
    ) -> Params<'a> {
        Params { info, values, mss, run_seed, flow }
    }

    /// The sender's segment payload in bytes (the same as `Conn::mss`).
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// The random stream of this flow's algorithm (e.g. bbr's random gain-cycle
    /// start), seeded from the run seed and the flow index.
    pub fn rng(&self) -> Rng {
        Rng::for_component(self.run_seed, CC_STREAM_BASE + self.flow as u64)
    }

    /// The user's value of a declared parameter, if any.
    fn value(&self, name: &str) -> Option<f64> {
        debug_assert!(
            self.info.params.iter().any(|p| p.name() == name),
            "{} reads parameter {name} that its Info does not list",
            self.info.name
        );
        self.values.get(name).copied()
    }

    pub fn float(&self, p: &FloatParam) -> f64 {
        self.value(p.name).unwrap_or(p.default)
    }

    pub fn int(&self, p: &IntParam) -> i64 {
        self.value(p.name).map_or(p.default, |v| v as i64)
    }

    pub fn flag(&self, p: &BoolParam) -> bool {
        self.value(p.name).map_or(p.default, |v| v != 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lookup, registry, vegas};
    use super::*;

    fn check(alg: &str, name: &str, value: f64) -> Result<(), ParamError> {
        let values = BTreeMap::from([(name.to_string(), value)]);
        check_params(lookup(alg).unwrap(), &values, |_, _| String::new())
    }

    #[test]
    fn parameters_are_checked_by_kind_and_range() {
        assert!(check("vegas", "alpha", 3.0).is_ok());
        let e = check("vegas", "alpha", 2.9).unwrap_err();
        assert_eq!(e.name, "alpha");
        assert!(e.message.contains("2.9") && e.message.contains("an integer from 0 to 1000"), "{}", e.message);
        assert!(check("cubic", "hystart", 0.0).is_ok());
        let e = check("cubic", "hystart", 0.5).unwrap_err();
        assert!(e.message.contains("0.5") && e.message.contains("0 or 1"), "{}", e.message);
        assert!(check("cubic", "beta", 0.5).is_ok());
        assert!(check("cubic", "beta", 1.5).is_err());
        assert!(check("cubic", "beta", f64::NAN).is_err());
        let e = check("cubic", "alpha", 1.0).unwrap_err();
        assert!(e.message.contains("cubic has no parameter 'alpha'"), "{}", e.message);
        assert!(check("reno", "alpha", 1.0).unwrap_err().message.contains("reno has no parameters"));
    }

    #[test]
    fn every_declared_default_is_allowed_and_every_name_unique() {
        for info in registry() {
            let mut names: Vec<&str> = info.params.iter().map(|p| p.name()).collect();
            for p in info.params {
                let default = match p {
                    Param::Float(f) => f.default,
                    Param::Int(i) => i.default as f64,
                    Param::Bool(b) => b.default as u8 as f64,
                };
                assert!(p.accepts(default), "{} {}: default {default} not allowed", info.name, p.name());
            }
            names.sort();
            names.dedup();
            assert_eq!(names.len(), info.params.len(), "{}", info.name);
        }
    }

    #[test]
    fn typed_getters_read_the_users_value_or_the_default() {
        let values = BTreeMap::from([("alpha".to_string(), 5.0), ("linux".to_string(), 1.0)]);
        let p = Params::new(&vegas::INFO, &values, 1448);
        assert_eq!(p.int(&vegas::param::ALPHA), 5);
        assert_eq!(p.int(&vegas::param::BETA), 4);
        assert!(p.flag(&vegas::param::LINUX));
    }
}
