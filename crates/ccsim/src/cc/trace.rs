//! An algorithm's internal state as the series trace it: the variables
//! each algorithm declares in `Info::state` and where its `state` hook
//! writes their values.

/// What a traced state variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// A real number, in `unit` ("ms", "bit/s", "segments"; "" for a ratio or gain).
    Float { unit: &'static str },
    /// A whole number (a count, or a 0/1 flag), in `unit`.
    Integer { unit: &'static str },
    /// One of `names`: `cc_state` records its index and its name.
    Mode { names: &'static [&'static str] },
}

/// A variable of an algorithm's internal state, traced in the `cc_state`
/// table beside the series (rows with `var` = its name): numbers (Float,
/// Integer) as `value` (NaN while unknown), modes as `value` = the index in
/// `names` and `label` = the name (NaN and "" while unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateVar {
    pub name: &'static str,
    pub kind: StateKind,
}

impl StateVar {
    pub const fn float(name: &'static str, unit: &'static str) -> StateVar {
        StateVar { name, kind: StateKind::Float { unit } }
    }
    pub const fn integer(name: &'static str, unit: &'static str) -> StateVar {
        StateVar { name, kind: StateKind::Integer { unit } }
    }
    pub const fn mode(name: &'static str, names: &'static [&'static str]) -> StateVar {
        StateVar { name, kind: StateKind::Mode { names } }
    }

    /// Is the variable recorded as a mode name (else as a number)?
    pub fn is_mode(&self) -> bool {
        matches!(self.kind, StateKind::Mode { .. })
    }
}

/// The value of a state variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StateValue {
    Number(f64),
    Mode(&'static str),
}

/// Where `CongestionControl::state` writes: one value per variable of
/// `Info::state`, reached by the variable's descriptor.
pub struct StateOut<'a> {
    vars: &'static [StateVar],
    values: &'a mut Vec<StateValue>,
}

impl<'a> StateOut<'a> {
    /// Values for `vars`, all unknown (NaN or "") until written; `values`
    /// is reused from sample to sample.
    pub fn new(vars: &'static [StateVar], values: &'a mut Vec<StateValue>) -> StateOut<'a> {
        values.clear();
        values
            .extend(vars.iter().map(|v| if v.is_mode() { StateValue::Mode("") } else { StateValue::Number(f64::NAN) }));
        StateOut { vars, values }
    }

    fn slot(&mut self, var: &StateVar) -> &mut StateValue {
        let i = self
            .vars
            .iter()
            .position(|v| v.name == var.name)
            .unwrap_or_else(|| panic!("state variable {} is not in the algorithm's Info::state", var.name));
        &mut self.values[i]
    }

    /// Sets a Float or Integer variable.
    pub fn number(&mut self, var: &StateVar, value: f64) {
        debug_assert!(!var.is_mode(), "{} is a mode", var.name);
        *self.slot(var) = StateValue::Number(value);
    }

    /// Sets a Mode variable to its `index`-th name.
    pub fn mode(&mut self, var: &StateVar, index: usize) {
        let StateKind::Mode { names } = var.kind else { panic!("{} is not a mode", var.name) };
        *self.slot(var) = StateValue::Mode(names[index]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, registry};
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn every_algorithm_writes_only_its_declared_state_and_names_are_one_kind() {
        let mut seen: Vec<StateVar> = Vec::new();
        for info in registry() {
            let alg = build(info.name, &BTreeMap::new(), 1448).unwrap();
            let mut values = Vec::new();
            alg.state(&mut StateOut::new(info.state, &mut values));
            assert_eq!(values.len(), info.state.len());
            for var in info.state {
                if let Some(other) = seen.iter().find(|v| v.name == var.name) {
                    assert_eq!(other.is_mode(), var.is_mode(), "{} is a mode in one algorithm only", var.name);
                }
                seen.push(*var);
            }
        }
    }

    #[test]
    fn modes_are_written_as_their_names() {
        let alg = build("bbr", &BTreeMap::new(), 1448).unwrap();
        let mut values = Vec::new();
        alg.state(&mut StateOut::new(alg.info().state, &mut values));
        let mode = alg.info().state.iter().position(|v| v.name == "mode").unwrap();
        assert_eq!(values[mode], StateValue::Mode("startup"));
    }
}
