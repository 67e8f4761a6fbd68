//! A UMTS Release 99 dedicated channel (DCH) whose rate the network sets from
//! the traffic the terminal has, as the RNC's radio resource management does.
//!
//! The RNC watches the RLC buffer of the radio bearer (the transport channel
//! traffic volume, TCTV: 3GPP TS 25.331 14.4.2, the sum of the buffer
//! occupancy of the logical channels on the transport channel; on the
//! downlink the RNC measures its own RLC buffer, on the uplink the UE reports
//! it) and reconfigures the bearer on two events:
//!   4a: TCTV above `up_threshold` for `up_time_to_trigger`: one bearer up;
//!   4b: TCTV below `down_threshold` for `down_time_to_trigger`: one bearer down.
//! After a report, no report of the same event follows for
//! `pending_after_trigger` (14.4.2.1: "pending time after trigger"); if the
//! condition still holds then, the event is reported again. A report takes
//! effect `reconfig_delay` later (the radio bearer reconfiguration procedure,
//! TS 25.331 8.2.2, at its activation time); the old bearer carries data
//! meanwhile, and no other report is acted on until it is done.
//!
//! RRC states (TS 25.331 7.1; timers and thresholds as measured by Qian et
//! al., IMC 2010): with `fach`, a DCH whose buffer has stayed empty for the
//! `inactivity` timer (T1) is released and the terminal falls back to
//! CELL_FACH, a common channel of low rate; when the buffer then holds more
//! than `promote_threshold`, the terminal is promoted to CELL_DCH, which takes
//! `promote_delay` during which the data waits; it enters the DCH on its
//! `initial_bearer`. Without `fach` the terminal stays in CELL_DCH.
//!
//! The machine is evaluated lazily: the buffer's occupancy only changes when
//! a packet enters the buffer or its transmission starts (`observe`), so the
//! events between two observations follow from the occupancy held since the
//! last one, and need no timer of their own. Deviation: a frame's
//! transmission time counts the reconfigurations known when it starts
//! (`finish_time`); one triggered while it is on the air takes effect from
//! the next frame.

use crate::time::{Nanos, NS_PER_SEC};

/// The low-rate common channel and the RRC timers around it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FachConfig {
    pub rate_bps: u64,
    /// CELL_FACH -> CELL_DCH when the buffer holds more than this.
    pub promote_threshold_bytes: u64,
    /// The promotion's delay (the data waits).
    pub promote_delay_ns: Nanos,
    /// CELL_DCH -> CELL_FACH after the buffer has been empty this long (T1).
    pub inactivity_ns: Nanos,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DchConfig {
    /// Bearer rates, lowest first, in bit/s.
    pub bearers_bps: Vec<u64>,
    /// The bearer a terminal gets when it enters CELL_DCH (and at the start without `fach`).
    pub initial_bearer: usize,
    pub up_threshold_bytes: u64,
    pub up_time_to_trigger_ns: Nanos,
    pub down_threshold_bytes: u64,
    pub down_time_to_trigger_ns: Nanos,
    pub pending_after_trigger_ns: Nanos,
    pub reconfig_delay_ns: Nanos,
    /// CELL_FACH and the timers between it and CELL_DCH; the terminal starts in CELL_FACH.
    pub fach: Option<FachConfig>,
}

impl DchConfig {
    /// The highest bearer: the channel's nominal rate.
    pub fn top_rate_bps(&self) -> u64 {
        self.bearers_bps.iter().copied().max().unwrap_or(0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RrcState {
    Fach,
    /// Being promoted to CELL_DCH until then.
    Promoting {
        until: Nanos,
    },
    Dch {
        bearer: usize,
    },
}

/// How often each transition happened (for tests and reports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DchCounters {
    pub upgrades: u64,
    pub downgrades: u64,
    pub promotions: u64,
    pub releases: u64,
}

pub struct Dch {
    config: DchConfig,
    state: RrcState,
    /// A reconfiguration under way: when it takes effect, and to which bearer.
    pending: Option<(Nanos, usize)>,
    /// The buffer's occupancy since `cursor` (the last observation or event handled).
    occupancy: u64,
    cursor: Nanos,
    above_since: Option<Nanos>,
    below_since: Option<Nanos>,
    empty_since: Option<Nanos>,
    last_up_report: Option<Nanos>,
    last_down_report: Option<Nanos>,
    pub counters: DchCounters,
}

/// The next event of the machine, found by `next_event`.
#[derive(Clone, Copy, Debug)]
enum Event {
    Reconfigured(usize),
    Promoted,
    UpReport,
    DownReport,
    Released,
}

impl Dch {
    pub fn new(config: DchConfig) -> Dch {
        let state = match config.fach {
            Some(_) => RrcState::Fach,
            None => RrcState::Dch { bearer: config.initial_bearer },
        };
        Dch {
            config,
            state,
            pending: None,
            occupancy: 0,
            cursor: 0,
            above_since: None,
            below_since: Some(0),
            empty_since: Some(0),
            last_up_report: None,
            last_down_report: None,
            counters: DchCounters::default(),
        }
    }

    pub fn state(&self) -> RrcState {
        self.state
    }

    /// The bearer's rate in force now (0 while being promoted).
    pub fn rate_bps(&self) -> u64 {
        match self.state {
            RrcState::Fach => self.config.fach.map_or(0, |f| f.rate_bps),
            RrcState::Promoting { .. } => 0,
            RrcState::Dch { bearer } => self.config.bearers_bps[bearer],
        }
    }

    /// When an event report is next due under the occupancy held since `since`:
    /// `ttt` after the condition began, and `pending` after the last report.
    fn report_due(since: Option<Nanos>, ttt: Nanos, last: Option<Nanos>, pending: Nanos) -> Option<Nanos> {
        let first = since? + ttt;
        Some(last.map_or(first, |l| first.max(l + pending)))
    }

    /// The earliest event at or after `cursor`, with its time.
    fn next_event(&self) -> Option<(Nanos, Event)> {
        let c = &self.config;
        let mut best: Option<(Nanos, Event)> = None;
        let mut consider = |t: Option<Nanos>, e: Event| {
            if let Some(t) = t {
                if best.is_none_or(|(b, _)| t < b) {
                    best = Some((t, e));
                }
            }
        };
        match self.state {
            RrcState::Fach => {}
            RrcState::Promoting { until } => consider(Some(until), Event::Promoted),
            RrcState::Dch { bearer } => {
                if let Some((at, to)) = self.pending {
                    consider(Some(at), Event::Reconfigured(to));
                } else {
                    let pending = c.pending_after_trigger_ns;
                    if bearer + 1 < c.bearers_bps.len() {
                        let due =
                            Self::report_due(self.above_since, c.up_time_to_trigger_ns, self.last_up_report, pending);
                        consider(due, Event::UpReport);
                    }
                    if bearer > 0 {
                        let due = Self::report_due(
                            self.below_since,
                            c.down_time_to_trigger_ns,
                            self.last_down_report,
                            pending,
                        );
                        consider(due, Event::DownReport);
                    }
                }
                if let (Some(f), Some(e)) = (c.fach, self.empty_since) {
                    consider(Some(e + f.inactivity_ns), Event::Released);
                }
            }
        }
        best.map(|(t, e)| (t.max(self.cursor), e))
    }

    /// Runs the machine up to `t` with the occupancy unchanged.
    fn advance(&mut self, t: Nanos) {
        while let Some((at, event)) = self.next_event().filter(|&(at, _)| at <= t) {
            self.cursor = at;
            match event {
                Event::Reconfigured(to) => {
                    let RrcState::Dch { bearer } = self.state else { unreachable!("reconfigured outside DCH") };
                    if to > bearer {
                        self.counters.upgrades += 1;
                    } else {
                        self.counters.downgrades += 1;
                    }
                    self.state = RrcState::Dch { bearer: to };
                    self.pending = None;
                }
                Event::Promoted => {
                    self.state = RrcState::Dch { bearer: self.config.initial_bearer };
                    // The inactivity timer starts in CELL_DCH.
                    self.empty_since = self.empty_since.map(|_| at);
                    self.counters.promotions += 1;
                }
                Event::UpReport | Event::DownReport => {
                    let RrcState::Dch { bearer } = self.state else { unreachable!("report outside DCH") };
                    let up = matches!(event, Event::UpReport);
                    if up {
                        self.last_up_report = Some(at);
                    } else {
                        self.last_down_report = Some(at);
                    }
                    let to = if up { bearer + 1 } else { bearer - 1 };
                    self.pending = Some((at + self.config.reconfig_delay_ns, to));
                }
                Event::Released => {
                    self.state = RrcState::Fach;
                    self.pending = None;
                    self.counters.releases += 1;
                }
            }
        }
        self.cursor = self.cursor.max(t);
    }

    /// The buffer holds `bytes` from `t` on (`t` never decreases between calls).
    pub fn observe(&mut self, t: Nanos, bytes: u64) {
        self.advance(t);
        let c = &self.config;
        let flag = |cond: bool, since: Option<Nanos>| if cond { since.or(Some(t)) } else { None };
        self.above_since = flag(bytes > c.up_threshold_bytes, self.above_since);
        self.below_since = flag(bytes < c.down_threshold_bytes, self.below_since);
        self.empty_since = flag(bytes == 0, self.empty_since);
        self.occupancy = bytes;
        if let (RrcState::Fach, Some(f)) = (self.state, c.fach) {
            if bytes > f.promote_threshold_bytes {
                self.state = RrcState::Promoting { until: t + f.promote_delay_ns };
            }
        }
    }

    /// The rate in force at `t` and until when (None: as far as is known now),
    /// without running the machine: a promotion or reconfiguration under way
    /// takes effect at its time.
    fn segment(&self, t: Nanos) -> (u64, Option<Nanos>) {
        let c = &self.config;
        match self.state {
            RrcState::Promoting { until } if t < until => (0, Some(until)),
            RrcState::Promoting { .. } => (c.bearers_bps[c.initial_bearer], None),
            RrcState::Dch { bearer } => match self.pending {
                Some((at, _)) if t < at => (c.bearers_bps[bearer], Some(at)),
                Some((_, to)) => (c.bearers_bps[to], None),
                None => (c.bearers_bps[bearer], None),
            },
            RrcState::Fach => (self.rate_bps(), None),
        }
    }

    /// When `bytes` whose transmission starts at `start` have left.
    pub fn finish_time(&mut self, start: Nanos, bytes: u32) -> Nanos {
        self.advance(start);
        let mut need = bytes as u128 * 8 * NS_PER_SEC as u128;
        let mut t = start;
        loop {
            let (rate, until) = self.segment(t);
            let rate = rate as u128;
            match until {
                Some(u) => {
                    let available = rate * (u - t) as u128;
                    if rate > 0 && available >= need {
                        return t + need.div_ceil(rate) as Nanos;
                    }
                    need -= available;
                    t = u;
                }
                None => {
                    assert!(rate > 0, "a checked DCH has no bearer of rate zero");
                    return t + need.div_ceil(rate) as Nanos;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: Nanos = NS_PER_MS;

    fn config(fach: bool) -> DchConfig {
        DchConfig {
            bearers_bps: vec![64_000, 128_000, 384_000],
            initial_bearer: 0,
            up_threshold_bytes: 4000,
            up_time_to_trigger_ns: 100 * MS,
            down_threshold_bytes: 500,
            down_time_to_trigger_ns: 1000 * MS,
            pending_after_trigger_ns: 500 * MS,
            reconfig_delay_ns: 300 * MS,
            fach: fach.then_some(FachConfig {
                rate_bps: 32_000,
                promote_threshold_bytes: 475,
                promote_delay_ns: 1500 * MS,
                inactivity_ns: 5000 * MS,
            }),
        }
    }

    fn bearer(d: &Dch) -> Option<usize> {
        match d.state() {
            RrcState::Dch { bearer } => Some(bearer),
            _ => None,
        }
    }

    /// 4a: the buffer above the threshold for the time to trigger, then the
    /// reconfiguration delay, gives the next bearer; held above, the next
    /// report waits for the pending time after the first.
    #[test]
    fn the_bearer_goes_up_after_4a_held_for_the_time_to_trigger() {
        let mut d = Dch::new(config(false));
        d.observe(0, 5000);
        d.observe(99 * MS, 5000);
        assert_eq!(d.pending, None, "not yet triggered");
        d.observe(399 * MS, 5000);
        assert_eq!(bearer(&d), Some(0), "triggered at 100 ms, effective at 400 ms");
        d.observe(400 * MS, 5000);
        assert_eq!(bearer(&d), Some(1));
        // Next report: pending time after the 100 ms report (600 ms), effective at 900 ms.
        d.observe(899 * MS, 5000);
        assert_eq!(bearer(&d), Some(1));
        d.observe(900 * MS, 5000);
        assert_eq!(bearer(&d), Some(2));
        assert_eq!(d.counters.upgrades, 2);
        // Above the top bearer: nothing more.
        d.observe(10_000 * MS, 5000);
        assert_eq!((bearer(&d), d.counters.upgrades), (Some(2), 2));
    }

    /// A buffer that dips below the 4a threshold before the time to trigger
    /// restarts it; one above the 4a threshold never triggers 4b.
    #[test]
    fn a_short_burst_does_not_trigger_4a() {
        let mut d = Dch::new(config(false));
        for k in 0..100 {
            let t = k * 100 * MS;
            d.observe(t, 5000);
            d.observe(t + 90 * MS, 1000); // above for 90 ms of each 100
        }
        assert_eq!((bearer(&d), d.counters.upgrades), (Some(0), 0));
    }

    /// 4b: the buffer below the 4b threshold for its time to trigger brings
    /// the bearer down one step per report.
    #[test]
    fn the_bearer_goes_down_after_4b() {
        let mut d = Dch::new(config(false));
        d.observe(0, 5000);
        d.observe(2000 * MS, 100);
        assert_eq!(bearer(&d), Some(2));
        // Below since 2 s: report at 3 s, on the 128 kbit/s bearer at 3.3 s;
        // the next report 500 ms after the first (3.5 s), on 64 at 3.8 s.
        d.observe(3299 * MS, 100);
        assert_eq!(bearer(&d), Some(2));
        d.observe(3300 * MS, 100);
        assert_eq!(bearer(&d), Some(1));
        d.observe(3800 * MS, 100);
        assert_eq!((bearer(&d), d.counters.downgrades), (Some(0), 2));
    }

    /// CELL_FACH: a packet below the promotion threshold goes at the FACH
    /// rate; more than the threshold waits for the promotion delay, then goes
    /// at the initial bearer's rate; after the inactivity timer the DCH is
    /// released.
    #[test]
    fn the_first_burst_after_idle_waits_for_the_promotion() {
        let mut d = Dch::new(config(true));
        d.observe(0, 0);
        // 100 bytes at 32 kbit/s: 25 ms.
        assert_eq!(d.finish_time(0, 100), 25 * MS);
        d.observe(100 * MS, 1500);
        assert_eq!(d.state(), RrcState::Promoting { until: 1600 * MS });
        // 1500 bytes at 64 kbit/s after the promotion: 187.5 ms.
        d.observe(100 * MS, 0);
        assert_eq!(d.finish_time(100 * MS, 1500), 1600 * MS + 187_500_000);
        assert_eq!(bearer(&d), None, "the promotion is not done before its time");
        d.observe(1700 * MS, 0);
        assert_eq!((bearer(&d), d.counters.promotions), (Some(0), 1));
        // Empty since it entered CELL_DCH at 1.6 s: released 5 s later.
        d.observe(6599 * MS, 0);
        assert_eq!(bearer(&d), Some(0));
        d.observe(6600 * MS, 0);
        assert_eq!((d.state(), d.counters.releases), (RrcState::Fach, 1));
    }

    /// A frame started before a reconfiguration's activation time is sent at
    /// the old rate up to it and at the new one after.
    #[test]
    fn a_frame_spanning_a_reconfiguration_integrates_both_rates() {
        let mut d = Dch::new(config(false));
        d.observe(0, 5000);
        d.observe(100 * MS, 5000); // report at 100 ms, effective at 400 ms
                                   // From 350 ms: 50 ms at 64 kbit/s (400 bytes), then 1100 bytes at 128 kbit/s (68.75 ms).
        assert_eq!(d.finish_time(350 * MS, 1500), 400 * MS + 68_750_000);
    }

    /// The same observations give the same transitions, however often the
    /// machine is looked at in between (it needs no timers).
    #[test]
    fn lazy_evaluation_does_not_depend_on_how_often_it_is_asked() {
        // Idle for 5.9 s (longer than the inactivity timer), busy for 3 s, in turn.
        let script: Vec<(Nanos, u64)> =
            (0..800u64).map(|k| (k * 37 * MS, if k % 240 < 160 { 0 } else { 3000 + (k % 7) * 1000 })).collect();
        let run = |extra: bool| {
            let mut d = Dch::new(config(true));
            let mut states = Vec::new();
            for &(t, b) in &script {
                if extra {
                    d.observe(t.saturating_sub(5 * MS), d.occupancy);
                }
                d.observe(t, b);
                states.push(d.state());
            }
            (states, d.counters)
        };
        let (a, b) = (run(false), run(true));
        assert_eq!(a, b);
        assert!(a.1.upgrades > 0 && a.1.downgrades > 0 && a.1.releases > 0 && a.1.promotions > 1, "{:?}", a.1);
    }
}
