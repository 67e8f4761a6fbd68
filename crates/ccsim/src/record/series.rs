//! Time series sampled at a fixed interval: per flow the kernel-style
//! variables (as tcp_probe / TCP_INFO show them), a row only when something
//! changed, and beside it the algorithm's own state as a long table
//! (`cc_state`: at a series row, one row per state variable whose value
//! changed since the flow's previous series row, every variable at its
//! first; so every run's tables have the same columns whatever its
//! algorithms); per link the queue and its counters, a row every sample.
//! Sampling allocates nothing per row beyond the columns' growth.

use super::table::{Column, Table};
use crate::cc::{StateKind, StateOut, StateValue, StateVar, INFINITE_SSTHRESH};
use crate::net::link::Link;
use crate::tcp::sender::Sender;
use crate::time::{secs, Nanos};

/// The sampling interval of a scenario that gives none, for few flows.
pub const DEFAULT_INTERVAL_NS: Nanos = 10_000_000;
/// The flow samples (flows x samples in the run) the default interval keeps
/// a run's series to: about 13 MB of series rows, however many flows and
/// however long the run (the change-only rows keep fewer).
pub const DEFAULT_FLOW_SAMPLES: u64 = 100_000;

/// The default sampling interval of `flows` flows over `duration_ns`:
/// DEFAULT_INTERVAL_NS, or when that would take more than
/// DEFAULT_FLOW_SAMPLES flow samples, flows x duration / DEFAULT_FLOW_SAMPLES
/// rounded up to a whole millisecond (4096 flows for 10 s: 410 ms; 8 flows
/// for 600 s: 48 ms).
pub fn default_interval_ns(flows: u64, duration_ns: Nanos) -> Nanos {
    const MS: u128 = 1_000_000;
    let spread_ns = (flows as u128 * duration_ns as u128).div_ceil(DEFAULT_FLOW_SAMPLES as u128);
    let spread_ns = spread_ns.div_ceil(MS) * MS;
    DEFAULT_INTERVAL_NS.max(Nanos::try_from(spread_ns).unwrap_or(Nanos::MAX))
}

fn ms(t: Option<Nanos>) -> f64 {
    t.map_or(f64::NAN, |t| t as f64 / 1e6)
}

/// The kernel-style variables of one flow's row.
#[derive(Clone, Copy, Default)]
struct KernelRow {
    cwnd: u32,
    ssthresh: f64,
    srtt_ms: f64,
    rttvar_ms: f64,
    rto_ms: f64,
    min_rtt_ms: f64,
    rtt_ms: f64,
    in_flight: u32,
    delivered_bytes: u64,
    bytes_sent: u64,
    retransmitted: u64,
    timeouts: u64,
    ca_state: u32,
    pacing_rate_bps: f64,
    rwnd_bytes: u64,
}

impl KernelRow {
    fn of(sender: &Sender, delivered_bytes: u64, rwnd_bytes: u64) -> KernelRow {
        KernelRow {
            cwnd: sender.w.cwnd,
            ssthresh: if sender.w.ssthresh >= INFINITE_SSTHRESH { f64::NAN } else { sender.w.ssthresh as f64 },
            srtt_ms: ms(sender.rtt.srtt()),
            rttvar_ms: if sender.rtt.srtt().is_some() { sender.rtt.rttvar() as f64 / 1e6 } else { f64::NAN },
            rto_ms: ms(Some(sender.rtt.rto())),
            min_rtt_ms: ms(sender.rtt.min_rtt()),
            rtt_ms: ms(sender.rtt.latest()),
            in_flight: sender.in_flight(),
            delivered_bytes,
            bytes_sent: sender.stats.bytes_sent,
            retransmitted: sender.stats.retransmitted_segments,
            timeouts: sender.stats.timeouts,
            ca_state: sender.ca_state() as u32,
            pacing_rate_bps: sender.pacing_rate().map_or(f64::NAN, |r| r * 8.0),
            rwnd_bytes,
        }
    }

    /// Same values (floats by their bits, so NaN equals NaN).
    fn same_as(&self, o: &KernelRow) -> bool {
        let floats = |r: &KernelRow| {
            [r.ssthresh, r.srtt_ms, r.rttvar_ms, r.rto_ms, r.min_rtt_ms, r.rtt_ms, r.pacing_rate_bps].map(f64::to_bits)
        };
        let ints = |r: &KernelRow| {
            [r.cwnd as u64, r.in_flight as u64, r.delivered_bytes, r.bytes_sent, r.retransmitted, r.timeouts]
                .into_iter()
                .chain([r.ca_state as u64, r.rwnd_bytes])
        };
        floats(self) == floats(o) && ints(self).eq(ints(o))
    }
}

fn same_state(a: &StateValue, b: &StateValue) -> bool {
    match (a, b) {
        (StateValue::Number(x), StateValue::Number(y)) => x.to_bits() == y.to_bits(),
        (StateValue::Mode(x), StateValue::Mode(y)) => std::ptr::eq(*x, *y) || x == y,
        _ => false,
    }
}

/// Per flow: its algorithm's state variables (and where they start in the
/// flat buffers) and the last row written.
struct FlowTrack {
    vars: &'static [StateVar],
    cc_start: usize,
    last: Option<KernelRow>,
    /// This sample's row (between the two passes of `sample`).
    current: KernelRow,
}

/// The flows' time series. A flow has a row at a sample only when one of
/// its recorded variables changed since its previous row, plus its first
/// row, its last (at the end of the run or of its activity) and, before a
/// change that follows unchanged samples, the last unchanged one (so a
/// counter's rate between two consecutive rows is exact). Each flow's rows
/// are in time order; the table is ordered by time.
#[derive(Default)]
pub struct FlowSeries {
    t: Vec<f64>,
    flow: Vec<u32>,
    cwnd: Vec<u32>,
    ssthresh: Vec<f64>,
    srtt_ms: Vec<f64>,
    rttvar_ms: Vec<f64>,
    /// The retransmission timeout the sender would arm now, backoff included.
    rto_ms: Vec<f64>,
    min_rtt_ms: Vec<f64>,
    rtt_ms: Vec<f64>,
    in_flight: Vec<u32>,
    delivered_bytes: Vec<u64>,
    bytes_sent: Vec<u64>,
    retransmitted: Vec<u64>,
    timeouts: Vec<u64>,
    ca_state: Vec<u32>,
    pacing_rate_bps: Vec<f64>,
    rwnd_bytes: Vec<u64>,
    /// The `cc_state` table: per series row, one row per state variable of
    /// the flow's algorithm that changed since the flow's previous row.
    state: StateRows,
    tracks: Vec<FlowTrack>,
    /// Per flow (compact, as the quiet flows of a sample touch nothing
    /// else): the latest sample time whose row equalled its last row and was
    /// not written, and whether it was active at its latest sample.
    held_t: Vec<Option<f64>>,
    active: Vec<bool>,
    /// Per flow, flat: each state variable's code in `var_names`, where its
    /// mode names' codes start in `label_codes`, its value at the flow's
    /// last row and this sample's value.
    cc_var_code: Vec<u32>,
    cc_label_start: Vec<u32>,
    cc_last: Vec<StateValue>,
    cc_current: Vec<StateValue>,
    /// The values of one sample (reused).
    cc_values: Vec<StateValue>,
    /// Flows whose row this sample writes (reused).
    changed: Vec<u32>,
}

/// The columns of the `cc_state` table, and its two dictionaries: the
/// variables' names (union by name over the run's algorithms) and the mode
/// names ("" first: the label of a number and of an unknown mode).
#[derive(Default)]
struct StateRows {
    t: Vec<f64>,
    flow: Vec<u32>,
    var: Vec<u32>,
    value: Vec<f64>,
    label: Vec<u32>,
    var_names: Vec<&'static str>,
    labels: Vec<&'static str>,
    /// Per mode variable of each flow (flat, from `cc_label_start`): each of
    /// its mode names' code in `labels`.
    label_codes: Vec<u32>,
}

/// The code of `name` in `dictionary`, added if new.
fn code_of(dictionary: &mut Vec<&'static str>, name: &'static str) -> u32 {
    let code = dictionary.iter().position(|known| *known == name).unwrap_or_else(|| {
        dictionary.push(name);
        dictionary.len() - 1
    });
    code as u32
}

impl FlowSeries {
    /// `state_vars`: every flow's algorithm's state variables, in flow order.
    pub fn new(state_vars: impl Iterator<Item = &'static [StateVar]>) -> FlowSeries {
        let mut s = FlowSeries::default();
        s.state.labels.push("");
        for vars in state_vars {
            let cc_start = s.cc_last.len();
            for v in vars {
                s.cc_var_code.push(code_of(&mut s.state.var_names, v.name));
                s.cc_label_start.push(s.state.label_codes.len() as u32);
                if let StateKind::Mode { names } = v.kind {
                    for name in names {
                        let code = code_of(&mut s.state.labels, name);
                        s.state.label_codes.push(code);
                    }
                }
                let unknown = if v.is_mode() { StateValue::Mode("") } else { StateValue::Number(f64::NAN) };
                s.cc_last.push(unknown);
                s.cc_current.push(unknown);
            }
            s.tracks.push(FlowTrack { vars, cc_start, last: None, current: KernelRow::default() });
            s.held_t.push(None);
            s.active.push(false);
        }
        s
    }

    /// Room for `rows` more rows, so the columns need not grow as they fill
    /// (growing 17 columns row by row cost a UMTS run an eighth of its time).
    pub fn reserve(&mut self, rows: usize) {
        self.t.reserve(rows);
        self.flow.reserve(rows);
        self.cwnd.reserve(rows);
        self.ssthresh.reserve(rows);
        self.srtt_ms.reserve(rows);
        self.rttvar_ms.reserve(rows);
        self.rto_ms.reserve(rows);
        self.min_rtt_ms.reserve(rows);
        self.rtt_ms.reserve(rows);
        self.in_flight.reserve(rows);
        self.delivered_bytes.reserve(rows);
        self.bytes_sent.reserve(rows);
        self.retransmitted.reserve(rows);
        self.timeouts.reserve(rows);
        self.ca_state.reserve(rows);
        self.pacing_rate_bps.reserve(rows);
        self.rwnd_bytes.reserve(rows);
    }

    /// A sample at `now` of the flows given to `new`. `touched[i]`: flow i
    /// had an event since its previous sample (reset here); an untouched flow
    /// cannot have changed, so only touched flows are read, through `flow(i)`:
    /// its sender and, while it is active, its receiver's delivered bytes
    /// and receive window. `last_sample`: the run's last, where every active
    /// flow gets its row.
    pub fn sample<'a>(
        &mut self,
        now: Nanos,
        last_sample: bool,
        touched: &mut [bool],
        flow: impl Fn(usize) -> (&'a Sender, Option<(u64, u64)>),
    ) {
        let t = secs(now);
        let mut changed = std::mem::take(&mut self.changed);
        changed.clear();
        // First the held rows (all before `now`), then this sample's, so the table stays in time order.
        for (i, touched) in touched.iter_mut().enumerate() {
            if !*touched && !last_sample {
                if self.active[i] {
                    self.held_t[i] = Some(t);
                }
                continue;
            }
            *touched = false;
            let (sender, active) = flow(i);
            self.active[i] = active.is_some();
            let Some((delivered_bytes, rwnd_bytes)) = active else {
                self.write_held(i);
                continue;
            };
            let row = KernelRow::of(sender, delivered_bytes, rwnd_bytes);
            let alg = sender.algorithm();
            alg.state(&mut StateOut::new(alg.info().state, &mut self.cc_values));
            let track = &mut self.tracks[i];
            let cc = track.cc_start..track.cc_start + track.vars.len();
            let same = track.last.is_some_and(|last| last.same_as(&row))
                && self.cc_values.iter().zip(&self.cc_last[cc.clone()]).all(|(a, b)| same_state(a, b));
            if same && !last_sample {
                self.held_t[i] = Some(t);
                continue;
            }
            if !same {
                self.write_held(i);
            }
            self.held_t[i] = None;
            let track = &mut self.tracks[i];
            track.current = row;
            self.cc_current[cc].copy_from_slice(&self.cc_values);
            changed.push(i as u32);
        }
        for &i in &changed {
            let track = &mut self.tracks[i as usize];
            let first = track.last.is_none();
            track.last = Some(track.current);
            self.write(t, i as usize);
            self.write_state(t, i as usize, first);
        }
        self.changed = changed;
    }

    /// Writes flow `i`'s held row, if any (its last row, at the held time).
    fn write_held(&mut self, i: usize) {
        if let Some(t) = self.held_t[i].take() {
            self.write(t, i);
        }
    }

    /// Writes flow `i`'s last row at time `t`.
    fn write(&mut self, t: f64, i: usize) {
        let track = &self.tracks[i];
        let r = track.last.expect("a flow's row is written after it was sampled");
        self.t.push(t);
        self.flow.push(i as u32);
        self.cwnd.push(r.cwnd);
        self.ssthresh.push(r.ssthresh);
        self.srtt_ms.push(r.srtt_ms);
        self.rttvar_ms.push(r.rttvar_ms);
        self.rto_ms.push(r.rto_ms);
        self.min_rtt_ms.push(r.min_rtt_ms);
        self.rtt_ms.push(r.rtt_ms);
        self.in_flight.push(r.in_flight);
        self.delivered_bytes.push(r.delivered_bytes);
        self.bytes_sent.push(r.bytes_sent);
        self.retransmitted.push(r.retransmitted);
        self.timeouts.push(r.timeouts);
        self.ca_state.push(r.ca_state);
        self.pacing_rate_bps.push(r.pacing_rate_bps);
        self.rwnd_bytes.push(r.rwnd_bytes);
    }

    /// Writes flow `i`'s `cc_state` rows at time `t`: one for each state
    /// variable whose value this sample differs from its last (`all`: every
    /// one), which it becomes.
    fn write_state(&mut self, t: f64, i: usize, all: bool) {
        let track = &self.tracks[i];
        for (k, var) in (track.cc_start..).zip(track.vars) {
            let value = self.cc_current[k];
            if !all && same_state(&value, &self.cc_last[k]) {
                continue;
            }
            self.cc_last[k] = value;
            let (value, label) = match (value, var.kind) {
                (StateValue::Number(v), _) => (v, 0),
                (StateValue::Mode(m), StateKind::Mode { names }) => match names.iter().position(|n| *n == m) {
                    Some(index) => (index as f64, self.state.label_codes[self.cc_label_start[k] as usize + index]),
                    None => (f64::NAN, 0),
                },
                (StateValue::Mode(_), _) => (f64::NAN, 0),
            };
            let rows = &mut self.state;
            rows.t.push(t);
            rows.flow.push(i as u32);
            rows.var.push(self.cc_var_code[k]);
            rows.value.push(value);
            rows.label.push(label);
        }
    }

    /// The `series` table (kernel-style columns, the same for every run) and
    /// the `cc_state` table (t, flow, var, value, label).
    pub fn into_tables(self) -> (Table, Table) {
        let mut t = Table::new();
        t.add("t", Column::F64(self.t));
        t.add("flow", Column::U32(self.flow));
        t.add("cwnd", Column::U32(self.cwnd));
        t.add("ssthresh", Column::F64(self.ssthresh));
        t.add("srtt_ms", Column::F64(self.srtt_ms));
        t.add("rttvar_ms", Column::F64(self.rttvar_ms));
        t.add("rto_ms", Column::F64(self.rto_ms));
        t.add("min_rtt_ms", Column::F64(self.min_rtt_ms));
        t.add("rtt_ms", Column::F64(self.rtt_ms));
        t.add("in_flight", Column::U32(self.in_flight));
        t.add("delivered_bytes", Column::U64(self.delivered_bytes));
        t.add("bytes_sent", Column::U64(self.bytes_sent));
        t.add("retransmitted", Column::U64(self.retransmitted));
        t.add("timeouts", Column::U64(self.timeouts));
        t.add("ca_state", Column::U32(self.ca_state));
        t.add("pacing_rate_bps", Column::F64(self.pacing_rate_bps));
        t.add("rwnd_bytes", Column::U64(self.rwnd_bytes));
        let rows = self.state;
        let mut state = Table::new();
        state.add("t", Column::F64(rows.t));
        state.add("flow", Column::U32(rows.flow));
        state.add("var", Column::Dict { dictionary: rows.var_names, codes: rows.var });
        state.add("value", Column::F64(rows.value));
        state.add("label", Column::Dict { dictionary: rows.labels, codes: rows.label });
        (t, state)
    }
}

/// Per link and sample: the queue, the cumulative counters, and two rates over
/// the last interval (delivered bit/s and the mean sojourn time of the packets
/// that left the queue), so links plot like flows.
#[derive(Default)]
pub struct LinkSeries {
    t: Vec<f64>,
    /// Link index (named in `into_table`).
    link: Vec<u32>,
    queue_packets: Vec<u64>,
    queue_bytes: Vec<u64>,
    arrivals: Vec<u64>,
    queue_drops: Vec<u64>,
    aqm_drops: Vec<u64>,
    ecn_marks: Vec<u64>,
    departures: Vec<u64>,
    departure_bytes: Vec<u64>,
    channel_losses: Vec<u64>,
    arq_retries: Vec<u64>,
    residual_losses: Vec<u64>,
    outages: Vec<u64>,
    delivered_bytes: Vec<u64>,
    delivered_rate_bps: Vec<f64>,
    sojourn_ms: Vec<f64>,
    /// Per link index: what its previous sample's rates start from.
    previous: Vec<RateBase>,
}

/// The part of a link's sample that the next sample's two rates start from.
#[derive(Clone, Copy, Default)]
struct RateBase {
    t: Nanos,
    delivered_bytes: u64,
    dequeued: u64,
    sojourn_ns: u64,
}

impl LinkSeries {
    /// A series that holds `rows` rows without growing (a run knows how many
    /// samples it takes: growing the 17 columns row by row cost a UMTS run as
    /// much as taking the samples).
    pub fn with_capacity(rows: usize) -> LinkSeries {
        fn column<T>(rows: usize) -> Vec<T> {
            Vec::with_capacity(rows)
        }
        LinkSeries {
            t: column(rows),
            link: column(rows),
            queue_packets: column(rows),
            queue_bytes: column(rows),
            arrivals: column(rows),
            queue_drops: column(rows),
            aqm_drops: column(rows),
            ecn_marks: column(rows),
            departures: column(rows),
            departure_bytes: column(rows),
            channel_losses: column(rows),
            arq_retries: column(rows),
            residual_losses: column(rows),
            outages: column(rows),
            delivered_bytes: column(rows),
            delivered_rate_bps: column(rows),
            sojourn_ms: column(rows),
            previous: Vec::new(),
        }
    }

    /// One row for link number `index` at `now`.
    pub fn push(&mut self, now: Nanos, index: usize, link: &Link) {
        let c = link.counters();
        if self.previous.len() <= index {
            self.previous.resize(index + 1, RateBase::default());
        }
        let base = self.previous[index];
        self.t.push(secs(now));
        self.link.push(index as u32);
        self.queue_packets.push(link.queue_packets() as u64);
        self.queue_bytes.push(link.queue_bytes());
        self.arrivals.push(c.arrivals);
        self.queue_drops.push(c.queue_drops);
        self.aqm_drops.push(c.aqm_drops);
        self.ecn_marks.push(c.ecn_marks);
        self.departures.push(c.departures);
        self.departure_bytes.push(c.departure_bytes);
        self.channel_losses.push(c.channel_losses);
        self.arq_retries.push(c.arq_retries);
        self.residual_losses.push(c.residual_losses);
        self.outages.push(c.outages);
        self.delivered_bytes.push(c.delivered_bytes);
        self.delivered_rate_bps.push(if now > base.t {
            (c.delivered_bytes - base.delivered_bytes) as f64 * 8.0 / secs(now - base.t)
        } else {
            f64::NAN
        });
        let dequeued = c.dequeued - base.dequeued;
        self.sojourn_ms.push(if dequeued > 0 {
            (c.sojourn_ns - base.sojourn_ns) as f64 / dequeued as f64 / 1e6
        } else {
            f64::NAN
        });
        self.previous[index] =
            RateBase { t: now, delivered_bytes: c.delivered_bytes, dequeued: c.dequeued, sojourn_ns: c.sojourn_ns };
    }

    /// The table, links named by index in `names`.
    pub fn into_table(self, names: &[String]) -> Table {
        let mut t = Table::new();
        t.add("t", Column::F64(self.t));
        t.add("link", Column::Names { names: names.to_vec(), codes: self.link });
        t.add("queue_packets", Column::U64(self.queue_packets));
        t.add("queue_bytes", Column::U64(self.queue_bytes));
        t.add("arrivals", Column::U64(self.arrivals));
        t.add("queue_drops", Column::U64(self.queue_drops));
        t.add("aqm_drops", Column::U64(self.aqm_drops));
        t.add("ecn_marks", Column::U64(self.ecn_marks));
        t.add("departures", Column::U64(self.departures));
        t.add("departure_bytes", Column::U64(self.departure_bytes));
        t.add("channel_losses", Column::U64(self.channel_losses));
        t.add("arq_retries", Column::U64(self.arq_retries));
        t.add("residual_losses", Column::U64(self.residual_losses));
        t.add("outages", Column::U64(self.outages));
        t.add("delivered_bytes", Column::U64(self.delivered_bytes));
        t.add("delivered_rate_bps", Column::F64(self.delivered_rate_bps));
        t.add("sojourn_ms", Column::F64(self.sojourn_ms));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::driver::Driver;

    #[test]
    fn the_default_interval_is_10ms_until_the_flow_samples_pass_the_budget() {
        let s = 1_000_000_000;
        assert_eq!(default_interval_ns(1, 60 * s), DEFAULT_INTERVAL_NS);
        // 100 flows x 10 s at 10 ms: exactly the budget.
        assert_eq!(default_interval_ns(100, 10 * s), DEFAULT_INTERVAL_NS);
        assert_eq!(default_interval_ns(4096, 10 * s), 410_000_000);
        assert_eq!(default_interval_ns(8, 600 * s), 48_000_000);
        assert_eq!(default_interval_ns(0, 10 * s), DEFAULT_INTERVAL_NS);
        assert!(default_interval_ns(u64::MAX, u64::MAX) > DEFAULT_INTERVAL_NS);
    }

    #[test]
    fn flow_rows_carry_the_rto_with_its_backoff() {
        let mut d = Driver::new("reno", 10);
        d.start();
        let mut series = FlowSeries::new(std::iter::once(d.s.algorithm().info().state));
        series.sample(d.now, false, &mut [true], |_| (&d.s, Some((0, 0))));
        d.timeout();
        series.sample(d.now, false, &mut [true], |_| (&d.s, Some((0, 0))));
        let table = series.into_tables().0;
        // The initial RTO (1 s), then doubled by the timeout.
        assert_eq!(table.f64("rto_ms"), &[1000.0, 2000.0]);
    }

    #[test]
    fn rows_only_on_change_keep_the_first_the_last_and_the_one_before_a_change() {
        let mut d = Driver::new("cubic", 10);
        d.start();
        let mut series = FlowSeries::new(std::iter::once(d.s.algorithm().info().state));
        let ms = |k: u64| k * 1_000_000;
        let sample = |s: &mut FlowSeries, d: &Driver, k: u64, delivered: u64, last: bool| {
            s.sample(ms(k), last, &mut [true], |_| (&d.s, Some((delivered, 0))))
        };
        sample(&mut series, &d, 1, 0, false); // first: written
        sample(&mut series, &d, 2, 0, false); // same: held
        sample(&mut series, &d, 3, 0, false); // same: held
        sample(&mut series, &d, 4, 100, false); // changed: the held row at 3, then 4
        sample(&mut series, &d, 5, 100, false); // same: held
        d.timeout();
        sample(&mut series, &d, 6, 100, false); // changed (cwnd, rto): 5 then 6
        sample(&mut series, &d, 7, 100, false); // same: held
        sample(&mut series, &d, 8, 100, true); // the run's last sample: written
        let table = series.into_tables().0;
        assert_eq!(table.f64("t"), &[0.001, 0.003, 0.004, 0.005, 0.006, 0.008]);
        assert_eq!(table.u64("delivered_bytes"), &[0, 0, 100, 100, 100, 100]);
        // A flow that stops being active gets its held row written at the next sample.
        let mut s2 = FlowSeries::new(std::iter::once(d.s.algorithm().info().state));
        s2.sample(ms(1), false, &mut [true], |_| (&d.s, Some((5, 0))));
        s2.sample(ms(2), false, &mut [true], |_| (&d.s, Some((5, 0))));
        s2.sample(ms(3), false, &mut [true], |_| (&d.s, None));
        assert_eq!(s2.into_tables().0.f64("t"), &[0.001, 0.002]);
        // A flow without events since its previous sample is held without being read.
        let mut s3 = FlowSeries::new(std::iter::once(d.s.algorithm().info().state));
        s3.sample(ms(1), false, &mut [true], |_| (&d.s, Some((5, 0))));
        s3.sample(ms(2), false, &mut [false], |_| unreachable!("an untouched flow is not read"));
        s3.sample(ms(3), false, &mut [true], |_| (&d.s, Some((9, 0))));
        assert_eq!(s3.into_tables().0.f64("t"), &[0.001, 0.002, 0.003]);
    }

    #[test]
    fn state_rows_carry_numbers_and_modes_with_their_labels_beside_each_series_row() {
        let mut d = Driver::new("bbr", 10);
        d.start();
        let vars = d.s.algorithm().info().state;
        let mut series = FlowSeries::new(std::iter::once(vars));
        series.sample(1_000_000, false, &mut [true], |_| (&d.s, Some((0, 0))));
        series.sample(2_000_000, false, &mut [true], |_| (&d.s, Some((1, 0))));
        let (table, state) = series.into_tables();
        assert!(table.columns.iter().all(|(name, _)| !name.starts_with("cc_")));
        // Every variable at the flow's first row; at its second only those that changed (none here).
        assert_eq!(state.rows(), vars.len());
        let names = state.texts("var");
        assert_eq!(&names[..vars.len()], vars.iter().map(|v| v.name).collect::<Vec<_>>());
        let mode = names.iter().position(|n| *n == "mode").expect("bbr traces its mode");
        // Startup is the first of bbr's modes: value 0, label its name.
        assert_eq!((state.f64("value")[mode], state.texts("label")[mode]), (0.0, "startup"));
        let gain = names.iter().position(|n| *n == "pacing_gain").expect("bbr traces its pacing gain");
        assert!(state.f64("value")[gain] > 2.0, "startup's gain is 2/ln 2");
        assert_eq!(state.texts("label")[gain], "");
    }

    /// Runs `cc` through slow start, a timeout and more ACKs, sampling after
    /// each step (a series row every time: delivered bytes grow); returns
    /// the tables and the algorithm's state at each row, as its `state()`
    /// gave it.
    fn sampled_state(cc: &str) -> (Table, Table, Vec<Vec<StateValue>>) {
        let mut d = Driver::new(cc, 10);
        d.start();
        let vars = d.s.algorithm().info().state;
        let mut series = FlowSeries::new(std::iter::once(vars));
        let mut expected = Vec::new();
        for step in 0..20u64 {
            match step {
                0 => {}
                6 => drop(d.timeout()),
                k if k < 6 => drop(d.ack(10, k, &[])),
                k => drop(d.ack(10, k - 1, &[])),
            }
            series.sample(d.now, false, &mut [true], |_| (&d.s, Some((step, 0))));
            let mut values = Vec::new();
            d.s.algorithm().state(&mut StateOut::new(vars, &mut values));
            expected.push(values);
        }
        let (table, state) = series.into_tables();
        (table, state, expected)
    }

    #[test]
    fn state_rows_only_on_change_keep_every_value_of_every_series_row() {
        for cc in ["cubic", "bbr", "vegas"] {
            let (table, state, expected) = sampled_state(cc);
            let vars = Driver::new(cc, 10).s.algorithm().info().state;
            assert_eq!(table.rows(), expected.len());
            let (t, names, value, label) =
                (state.f64("t"), state.texts("var"), state.f64("value"), state.texts("label"));
            assert!(state.rows() > vars.len(), "{cc}: some variable changed after the first row");
            assert!(state.rows() < table.rows() * vars.len(), "{cc}: unchanged values have no rows");
            for (k, var) in vars.iter().enumerate() {
                let rows: Vec<usize> = (0..state.rows()).filter(|&r| names[r] == var.name).collect();
                assert_eq!(t[rows[0]], table.f64("t")[0], "{cc} {}: every variable at the first row", var.name);
                for w in rows.windows(2) {
                    let same = value[w[0]].to_bits() == value[w[1]].to_bits() && label[w[0]] == label[w[1]];
                    assert!(!same, "{cc} {}: a row only when the value changed", var.name);
                }
                // The value at each series row: that of the variable's latest row at or before it.
                for (row, values) in expected.iter().enumerate() {
                    let at = table.f64("t")[row];
                    let r = *rows.iter().rev().find(|&&r| t[r] <= at).expect("a row at or before");
                    match values[k] {
                        StateValue::Number(v) => {
                            assert_eq!(value[r].to_bits(), v.to_bits(), "{cc} {} at {at}", var.name)
                        }
                        StateValue::Mode(m) => assert_eq!(label[r], m, "{cc} {} at {at}", var.name),
                    }
                }
            }
        }
    }
}
