//! The registry of algorithms: what each one is (`Info`: its reference,
//! `Role`, `LinuxModule` and ns-3 model, the one definition of these facts
//! that the binding hands to Python), the closed `Algorithm` enum that
//! dispatches the hooks statically, and the `algorithms!` list that names
//! them all, with lookup and build by name.

// The algorithm modules and the hook, parameter and state types, for the
// `algorithms!` list and the dispatch it generates.
use super::*;
use std::collections::BTreeMap;

/// What `ccbench algorithms` shows, and how to build the algorithm.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    pub name: &'static str,
    pub reference: &'static str,
    pub summary: &'static str,
    /// The sender's loss recovery for this entry (NewReno for all but tahoe and reno).
    pub recovery: RecoveryPolicy,
    pub params: &'static [Param],
    /// The internal state variables that `state()` writes.
    pub state: &'static [StateVar],
    /// What the algorithm is for: whether a recommendation may pick it, and when.
    pub role: Role,
    /// The Linux module that runs it, or why none does: what kernel mode
    /// (`python/ccbench/emulate/kernel.py`) asks the kernel for.
    pub linux: LinuxModule,
    /// The TypeId of ns-3 3.37's model of the algorithm (`ns3::TcpCubic`),
    /// if it has one: what `bench/crosscheck.py` compares with.
    pub ns3: Option<&'static str>,
}

/// Where Linux has an algorithm: the name its module registers (its
/// tcp_congestion_ops name, what TCP_CONGESTION takes), or why it has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinuxModule {
    /// Mainline Linux has it under this name.
    Mainline(&'static str),
    /// A kernel tree outside mainline has it under `name`; `note` says what
    /// it is and where ("TCP Prague (the L4S team's kernel tree, ...)").
    OutOfTree { name: &'static str, note: &'static str },
    /// No Linux kernel has it: `why`, as a phrase after "it is" ("Tahoe (no
    /// Linux module)").
    SimulatorOnly { why: &'static str },
}

impl LinuxModule {
    /// The module's name, in mainline or not; None for a simulator-only algorithm.
    pub fn name(self) -> Option<&'static str> {
        match self {
            LinuxModule::Mainline(name) | LinuxModule::OutOfTree { name, .. } => Some(name),
            LinuxModule::SimulatorOnly { .. } => None,
        }
    }

    /// What the name alone does not say: where a module outside mainline
    /// lives, or why there is no module; None for a mainline module.
    pub fn note(self) -> Option<&'static str> {
        match self {
            LinuxModule::Mainline(_) => None,
            LinuxModule::OutOfTree { note, .. } => Some(note),
            LinuxModule::SimulatorOnly { why } => Some(why),
        }
    }
}

/// What an algorithm is meant for, as its authors or its later history say.
/// `ccbench recommend` reads it (through the binding) to decide what it may
/// pick: a scavenger only for background transfers, a datacenter algorithm
/// only where its requirement holds, a historical one never.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Meant for any path and any foreground traffic.
    General,
    /// Less-than-best-effort: yields to standard TCP by design (RFC 6297
    /// surveys them), so it suits background transfers only.
    Scavenger,
    /// Needs ECN marking at a shallow threshold on every queue it crosses
    /// (RFC 8257 section 3: "DCTCP relies on ... ECN marking at the
    /// switches"); meant for a datacenter under one administration.
    Datacenter,
    /// Superseded by a successor the registry also has; kept to compare with.
    Historical,
}

impl Role {
    /// The name `ccbench algorithms` and the binding show.
    pub fn name(self) -> &'static str {
        match self {
            Role::General => "general",
            Role::Scavenger => "scavenger",
            Role::Datacenter => "datacenter",
            Role::Historical => "historical",
        }
    }

    /// What the path must provide for the algorithm to work as designed
    /// ("ecn": ECN marking at every queue of the data's route).
    pub fn requires(self) -> &'static [&'static str] {
        match self {
            Role::Datacenter => &["ecn"],
            _ => &[],
        }
    }
}

/// A registry entry: the description and the constructor.
pub struct Entry {
    pub info: &'static Info,
    pub build: fn(&Params) -> Algorithm,
}

macro_rules! algorithms {
    ($($variant:ident($module:ident :: $ty:ident) = $info:path),* $(,)?) => {

        /// Every algorithm, for static dispatch in the hot path. Variants differ
        /// in size (bbr is the largest), which is fine: there is one per flow,
        /// and boxing would add an indirection to every ACK.
        #[allow(clippy::large_enum_variant)]
        pub enum Algorithm { $($variant($module::$ty)),* }

        static REGISTRY: &[Entry] = &[
            $(Entry { info: &$info, build: |p| Algorithm::$variant($module::$ty::new(p)) }),*
        ];

        impl Algorithm {
            pub fn info(&self) -> &'static Info {
                match self { $(Algorithm::$variant(_) => &$info),* }
            }
        }

        /// The hooks, dispatched to the algorithm (see `CongestionControl`).
        /// Those called on every ACK take the `Conn` as a function of the
        /// window, called inside the algorithm's arm: inlined there, it
        /// computes only the fields that algorithm reads.
        impl Algorithm {
            /// The algorithm declares that it sets the window itself (`CongestionControl::OWNS_WINDOW`).
            pub fn owns_window(&self) -> bool {
                match self { $(Algorithm::$variant(_) => <$module::$ty as CongestionControl>::OWNS_WINDOW),* }
            }
            /// The algorithm declares that it paces (`CongestionControl::PACES`).
            pub fn paces(&self) -> bool {
                match self { $(Algorithm::$variant(_) => <$module::$ty as CongestionControl>::PACES),* }
            }
            /// The algorithm declares that it sends ECT(1) (`CongestionControl::SENDS_ECT1`).
            pub fn sends_ect1(&self) -> bool {
                match self { $(Algorithm::$variant(_) => <$module::$ty as CongestionControl>::SENDS_ECT1),* }
            }
            pub fn init(&mut self, w: &mut Window, c: &Conn) {
                match self { $(Algorithm::$variant(a) => a.init(w, c)),* }
            }
            #[inline]
            pub fn ssthresh(&mut self, w: &Window, c: &Conn) -> u32 {
                match self { $(Algorithm::$variant(a) => a.ssthresh(w, c)),* }
            }
            #[inline]
            pub fn cong_avoid(&mut self, w: &mut Window, conn: impl FnOnce(&Window) -> Conn, acked: u32) {
                match self { $(Algorithm::$variant(a) => { let c = conn(w); a.cong_avoid(w, &c, acked) }),* }
            }
            pub fn set_state(&mut self, w: &mut Window, c: &Conn, new: CaState) {
                match self { $(Algorithm::$variant(a) => a.set_state(w, c, new)),* }
            }
            #[inline]
            pub fn cwnd_event(&mut self, w: &mut Window, c: &Conn, event: CaEvent) {
                match self { $(Algorithm::$variant(a) => a.cwnd_event(w, c, event)),* }
            }
            #[inline]
            pub fn in_ack_event(&mut self, w: &mut Window, conn: impl FnOnce(&Window) -> Conn) {
                match self { $(Algorithm::$variant(a) => { let c = conn(w); a.in_ack_event(w, &c) }),* }
            }
            #[inline]
            pub fn pkts_acked(&mut self, w: &mut Window, conn: impl FnOnce(&Window) -> Conn, s: &AckSample) {
                match self { $(Algorithm::$variant(a) => { let c = conn(w); a.pkts_acked(w, &c, s) }),* }
            }
            pub fn min_cwnd(&self, w: &Window) -> u32 {
                match self { $(Algorithm::$variant(a) => a.min_cwnd(w)),* }
            }
            pub fn undo_cwnd(&mut self, w: &Window, prior_cwnd: u32) -> u32 {
                match self { $(Algorithm::$variant(a) => a.undo_cwnd(w, prior_cwnd)),* }
            }
            #[inline]
            pub fn cong_control(&mut self, w: &mut Window, conn: impl FnOnce(&Window) -> Conn, rs: &RateSample) {
                match self { $(Algorithm::$variant(a) => { let c = conn(w); a.cong_control(w, &c, rs) }),* }
            }
            #[inline]
            pub fn pacing_rate(&self) -> Option<f64> {
                match self { $(Algorithm::$variant(a) => a.pacing_rate()),* }
            }
            pub fn needs_ecn(&self) -> bool {
                match self { $(Algorithm::$variant(a) => a.needs_ecn()),* }
            }
            pub fn state(&self, out: &mut StateOut) {
                match self { $(Algorithm::$variant(a) => a.state(out)),* }
            }
        }
    };
}

/// All algorithms by name, in the order `ccbench algorithms` lists them.
pub fn registry() -> Vec<&'static Info> {
    REGISTRY.iter().map(|e| e.info).collect()
}

/// The description of algorithm `name` (case-insensitive).
pub fn lookup(name: &str) -> Option<&'static Info> {
    REGISTRY.iter().map(|e| e.info).find(|i| i.name.eq_ignore_ascii_case(name))
}

/// Builds algorithm `name` with the given parameters (validated beforehand).
/// `mss`: the sender's segment payload in bytes (what `Conn::mss` will say).
pub fn build(name: &str, values: &BTreeMap<String, f64>, mss: u32) -> Option<Algorithm> {
    build_for_flow(name, values, mss, 0, 0)
}

/// Builds algorithm `name` for flow `flow` of a run seeded with `run_seed`
/// (the seed reaches algorithms that draw random numbers through `Params::rng`).
pub fn build_for_flow(
    name: &str,
    values: &BTreeMap<String, f64>,
    mss: u32,
    run_seed: u64,
    flow: u32,
) -> Option<Algorithm> {
    let entry = REGISTRY.iter().find(|e| e.info.name.eq_ignore_ascii_case(name))?;
    Some((entry.build)(&Params::for_flow(entry.info, values, mss, run_seed, flow)))
}

// The registry: one line per name, `Variant(module::Type) = description`,
// in the order `ccbench algorithms` lists them. tahoe, reno and newreno are
// one window algorithm whose descriptions declare three recovery policies.
algorithms! {
    Tahoe(reno::Reno) = reno::TAHOE,
    Reno(reno::Reno) = reno::INFO,
    NewReno(reno::Reno) = reno::NEWRENO,
    Cubic(cubic::Cubic) = cubic::INFO,
    Bic(bic::Bic) = bic::INFO,
    Vegas(vegas::Vegas) = vegas::INFO,
    Westwood(westwood::Westwood) = westwood::INFO,
    WestwoodPlus(westwood_plus::WestwoodPlus) = westwood_plus::INFO,
    Compound(compound::Compound) = compound::INFO,
    Ccp(ccp::Ccp) = ccp::INFO,
    Ccpd(ccpd::Ccpd) = ccpd::INFO,
    Hybla(hybla::Hybla) = hybla::INFO,
    Veno(veno::Veno) = veno::INFO,
    Illinois(illinois::Illinois) = illinois::INFO,
    Bbr(bbr::Bbr) = bbr::INFO,
    Htcp(htcp::Htcp) = htcp::INFO,
    HighSpeed(highspeed::HighSpeed) = highspeed::INFO,
    Scalable(scalable::Scalable) = scalable::INFO,
    Yeah(yeah::Yeah) = yeah::INFO,
    Ledbat(ledbat::Ledbat) = ledbat::INFO,
    Dctcp(dctcp::Dctcp) = dctcp::INFO,
    Lp(lp::Lp) = lp::INFO,
    Copa(copa::Copa) = copa::INFO,
    Vivace(vivace::Vivace) = vivace::INFO,
    Prague(prague::Prague) = prague::INFO,
    Bbr3(bbr3::Bbr3) = bbr3::INFO,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The algorithms, built with their defaults, for which `declares` holds.
    fn declaring(declares: fn(&Algorithm) -> bool) -> Vec<&'static str> {
        registry()
            .iter()
            .filter(|i| declares(&build(i.name, &BTreeMap::new(), 1448).unwrap()))
            .map(|i| i.name)
            .collect()
    }

    #[test]
    fn roles_are_declared_where_the_references_say() {
        let with = |role| registry().into_iter().filter(|i| i.role == role).map(|i| i.name).collect::<Vec<_>>();
        assert_eq!(with(Role::Scavenger), ["ledbat", "lp"]);
        assert_eq!(with(Role::Datacenter), ["dctcp"]);
        assert_eq!(with(Role::Historical), ["tahoe", "bic", "westwood"]);
        assert!(with(Role::General).contains(&"cubic") && with(Role::General).contains(&"bbr"));
        assert_eq!(Role::Datacenter.requires(), ["ecn"]);
        assert!(Role::General.requires().is_empty());
    }

    #[test]
    fn linux_modules_and_ns3_models_are_declared_where_they_exist() {
        let module = |name| lookup(name).unwrap().linux;
        assert_eq!(module("newreno"), LinuxModule::Mainline("reno"));
        assert_eq!(module("westwood+"), LinuxModule::Mainline("westwood"));
        assert_eq!(module("westwood").name(), None);
        assert_eq!(module("prague").name(), Some("prague"));
        assert!(module("prague").note().unwrap().contains("not in mainline"));
        let without: Vec<&str> = registry().iter().filter(|i| i.linux.name().is_none()).map(|i| i.name).collect();
        assert_eq!(without, ["tahoe", "westwood", "compound", "ccp", "ccpd", "ledbat", "copa", "vivace"]);
        for info in registry() {
            let ns3 = info.ns3.unwrap_or("ns3::Tcp");
            assert!(ns3.starts_with("ns3::Tcp") && ns3.is_ascii(), "{}: {ns3}", info.name);
        }
        assert_eq!(lookup("westwood+").unwrap().ns3, Some("ns3::TcpWestwoodPlus"));
        assert_eq!(lookup("reno").unwrap().ns3, None);
    }

    #[test]
    fn window_ownership_is_declared_by_the_algorithm() {
        assert_eq!(declaring(Algorithm::owns_window), ["bbr", "copa", "vivace", "prague", "bbr3"]);
    }

    #[test]
    fn an_algorithm_that_gives_a_pacing_rate_declares_that_it_paces() {
        // The sender reads `pacing_rate` only of an algorithm that `PACES`:
        // one that gave a rate without declaring it would not be paced.
        for info in registry() {
            let a = build(info.name, &BTreeMap::new(), 1448).unwrap();
            assert_eq!(a.paces(), a.pacing_rate().is_some(), "{}", info.name);
        }
        assert_eq!(declaring(Algorithm::paces), ["bbr", "copa", "vivace", "prague", "bbr3"]);
        assert_eq!(declaring(Algorithm::sends_ect1), ["prague"]);
    }

    #[test]
    fn tahoe_reno_and_newreno_are_one_algorithm_with_three_recovery_policies() {
        let policy = |name| lookup(name).unwrap().recovery;
        assert_eq!(policy("tahoe"), RecoveryPolicy::SlowStart);
        assert_eq!(policy("reno"), RecoveryPolicy::Reno);
        assert_eq!(policy("newreno"), RecoveryPolicy::NewReno);
        assert_eq!(policy("cubic"), RecoveryPolicy::NewReno);
        let tahoe = build("tahoe", &BTreeMap::new(), 1448).unwrap();
        assert!(matches!(tahoe, Algorithm::Tahoe(reno::Reno)));
        assert_eq!(tahoe.info().name, "tahoe");
    }
}
