//! Time series sampled at a fixed interval: per flow the kernel-style
//! variables (as tcp_probe / TCP_INFO show them) plus the algorithm's own
//! state; per link the queue and its counters.

use super::table::{Column, Table};
use crate::cc::{StateOut, StateValue, StateVar, INFINITE_SSTHRESH};
use crate::net::link::{Link, LinkCounters};
use crate::tcp::sender::Sender;
use crate::time::{secs, Nanos};

fn ms(t: Option<Nanos>) -> f64 {
    t.map_or(f64::NAN, |t| t as f64 / 1e6)
}

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
    /// Union of the algorithms' state variables (by name), and one column each.
    cc_vars: Vec<StateVar>,
    cc_columns: Vec<StateColumn>,
    /// The values of one sample (reused).
    cc_values: Vec<StateValue>,
}

/// The column of one traced state variable: numbers, or mode names.
enum StateColumn {
    Number(Vec<f64>),
    Mode(Vec<&'static str>),
}

impl FlowSeries {
    /// `state_vars`: every algorithm's state variables, in flow order (for
    /// the column union; a name is a number column or a mode column for all).
    pub fn new(state_vars: impl Iterator<Item = &'static [StateVar]>) -> FlowSeries {
        let mut s = FlowSeries::default();
        for vars in state_vars {
            for v in vars {
                if !s.cc_vars.iter().any(|known| known.name == v.name) {
                    s.cc_vars.push(*v);
                    s.cc_columns.push(if v.is_mode() {
                        StateColumn::Mode(Vec::new())
                    } else {
                        StateColumn::Number(Vec::new())
                    });
                }
            }
        }
        s
    }

    /// One row for `sender` at `now`; `delivered_bytes` comes from its receiver.
    pub fn push(&mut self, now: Nanos, sender: &Sender, delivered_bytes: u64, rwnd_bytes: u64) {
        self.t.push(secs(now));
        self.flow.push(sender.id);
        self.cwnd.push(sender.w.cwnd);
        self.ssthresh.push(if sender.w.ssthresh >= INFINITE_SSTHRESH { f64::NAN } else { sender.w.ssthresh as f64 });
        self.srtt_ms.push(ms(sender.rtt.srtt()));
        self.rttvar_ms.push(if sender.rtt.srtt().is_some() { sender.rtt.rttvar() as f64 / 1e6 } else { f64::NAN });
        self.rto_ms.push(ms(Some(sender.rtt.rto())));
        self.min_rtt_ms.push(ms(sender.rtt.min_rtt()));
        self.rtt_ms.push(ms(sender.rtt.latest()));
        self.in_flight.push(sender.in_flight());
        self.delivered_bytes.push(delivered_bytes);
        self.bytes_sent.push(sender.stats.bytes_sent);
        self.retransmitted.push(sender.stats.retransmitted_segments);
        self.timeouts.push(sender.stats.timeouts);
        self.ca_state.push(sender.ca_state as u32);
        self.pacing_rate_bps.push(sender.pacing_rate().map_or(f64::NAN, |r| r * 8.0));
        self.rwnd_bytes.push(rwnd_bytes);
        let alg = sender.algorithm();
        let vars = alg.info().state;
        alg.state(&mut StateOut::new(vars, &mut self.cc_values));
        for (col, var) in self.cc_columns.iter_mut().zip(&self.cc_vars) {
            let value = vars.iter().position(|v| v.name == var.name).map(|i| self.cc_values[i]);
            match (col, value) {
                (StateColumn::Number(c), Some(StateValue::Number(v))) => c.push(v),
                (StateColumn::Number(c), _) => c.push(f64::NAN),
                (StateColumn::Mode(c), Some(StateValue::Mode(m))) => c.push(m),
                (StateColumn::Mode(c), _) => c.push(""),
            }
        }
    }

    pub fn into_table(self) -> Table {
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
        for (var, col) in self.cc_vars.into_iter().zip(self.cc_columns) {
            let column = match col {
                StateColumn::Number(c) => Column::F64(c),
                StateColumn::Mode(c) => Column::Str(c.into_iter().map(str::to_string).collect()),
            };
            t.add(&format!("cc_{}", var.name), column);
        }
        t
    }
}

/// Per link and sample: the queue, the cumulative counters, and two rates over
/// the last interval (delivered bit/s and the mean sojourn time of the packets
/// that left the queue), so links plot like flows.
#[derive(Default)]
pub struct LinkSeries {
    t: Vec<f64>,
    link: Vec<String>,
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
    /// Per link index: the counters at its previous sample.
    previous: Vec<(Nanos, LinkCounters)>,
}

impl LinkSeries {
    /// One row for link number `index` (named `name`) at `now`.
    pub fn push(&mut self, now: Nanos, index: usize, name: &str, link: &Link) {
        let c = link.counters();
        if self.previous.len() <= index {
            self.previous.resize(index + 1, (0, LinkCounters::default()));
        }
        let (t0, c0) = self.previous[index];
        self.t.push(secs(now));
        self.link.push(name.to_string());
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
        self.delivered_rate_bps.push(if now > t0 {
            (c.delivered_bytes - c0.delivered_bytes) as f64 * 8.0 / secs(now - t0)
        } else {
            f64::NAN
        });
        let dequeued = c.dequeued - c0.dequeued;
        self.sojourn_ms.push(if dequeued > 0 {
            (c.sojourn_ns - c0.sojourn_ns) as f64 / dequeued as f64 / 1e6
        } else {
            f64::NAN
        });
        self.previous[index] = (now, c);
    }

    pub fn into_table(self) -> Table {
        let mut t = Table::new();
        t.add("t", Column::F64(self.t));
        t.add("link", Column::Str(self.link));
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
    fn flow_rows_carry_the_rto_with_its_backoff() {
        let mut d = Driver::new("reno", 10);
        d.start();
        let mut series = FlowSeries::new(std::iter::empty());
        series.push(d.now, &d.s, 0, 0);
        d.timeout();
        series.push(d.now, &d.s, 0, 0);
        let table = series.into_table();
        // The initial RTO (1 s), then doubled by the timeout.
        assert_eq!(table.f64("rto_ms"), &[1000.0, 2000.0]);
    }
}
