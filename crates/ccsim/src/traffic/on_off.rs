//! On/off background load: N independent UDP sources, each alternating
//! exponentially distributed on and off periods and sending at a constant
//! rate while on (the exponential on/off source of ns-2/ns-3's
//! OnOffApplication; the aggregate of many is the classic model of voice
//! and of a cell's other users).
//!
//! The per-source rate while on is chosen so that the mean offered load is
//! `load` of the capacity: sources x rate x on / (on + off) = load x capacity.
//! The intensity profile scales that rate: rate(t) = rate x m(t). Each
//! source starts in its stationary state (on with probability on/(on+off),
//! with an exponential residual period, exact by memorylessness).

use super::cbr::Cbr;
use super::intensity::Intensity;
use super::udp::datagram;
use super::SourceCounters;
use crate::net::packet::Packet;
use crate::rng::Rng;
use crate::time::Nanos;

struct Member {
    on: bool,
    /// When the current period ends.
    toggle_at: Nanos,
    cbr: Cbr,
}

pub struct OnOff {
    pub id: u32,
    pub start: Nanos,
    pub stop: Nanos,
    pub intensity: Intensity,
    /// Rate of one source while on, at multiplier 1.
    pub rate_bps: f64,
    mean_on_ns: f64,
    mean_off_ns: f64,
    members: Vec<Member>,
    rng: Rng,
    seq: u64,
}

impl OnOff {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        load: f64,
        capacity_bps: u64,
        sources: u32,
        (mean_on_ns, mean_off_ns): (Nanos, Nanos),
        wire_bytes: u32,
        intensity: Intensity,
        (start, stop): (Nanos, Nanos),
        mut rng: Rng,
    ) -> OnOff {
        let (on, off) = (mean_on_ns as f64, mean_off_ns as f64);
        let duty = on / (on + off);
        let rate_bps = load * capacity_bps as f64 / (sources as f64 * duty);
        let members = (0..sources)
            .map(|_| {
                let is_on = rng.uniform() < duty;
                let residual = rng.exponential(if is_on { on } else { off }).round() as Nanos;
                let r = (rate_bps * intensity.at(start)).round() as u64;
                Member { on: is_on, toggle_at: start + residual.max(1), cbr: Cbr::new(r, wire_bytes, start) }
            })
            .collect();
        OnOff { id, start, stop, intensity, rate_bps, mean_on_ns: on, mean_off_ns: off, members, rng, seq: 0 }
    }

    fn member_wakeup(m: &Member) -> Nanos {
        if m.on {
            m.cbr.next_at.min(m.toggle_at)
        } else {
            m.toggle_at
        }
    }

    pub fn next_wakeup(&self) -> Option<Nanos> {
        self.members.iter().map(Self::member_wakeup).min().filter(|&t| t < self.stop)
    }

    pub fn advance(&mut self, now: Nanos, c: &mut SourceCounters, out: &mut Vec<Packet>) {
        let now = now.min(self.stop);
        for m in self.members.iter_mut() {
            loop {
                let send_due = m.on && m.cbr.next_at <= now && m.cbr.next_at < m.toggle_at;
                if send_due {
                    let t = m.cbr.next_at;
                    let mult = self.intensity.at(t);
                    if mult > 0.0 {
                        out.push(datagram(self.id, m.cbr.wire_bytes, self.seq));
                        self.seq += 1;
                        m.cbr.set_rate((self.rate_bps * mult).round() as u64);
                        m.cbr.step();
                    } else {
                        // Silent until the profile changes or the period ends.
                        m.cbr.next_at = self.intensity.next_change_after(t).unwrap_or(Nanos::MAX).min(m.toggle_at);
                    }
                } else if m.toggle_at <= now {
                    let t = m.toggle_at;
                    m.on = !m.on;
                    if m.on {
                        c.transfers_started += 1;
                        m.cbr.next_at = t;
                    } else {
                        c.transfers_completed += 1;
                    }
                    let mean = if m.on { self.mean_on_ns } else { self.mean_off_ns };
                    m.toggle_at = t + (self.rng.exponential(mean).round() as Nanos).max(1);
                } else {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_SEC;
    use crate::traffic::intensity::Interpolation;

    #[test]
    fn mean_rate_is_the_load_and_follows_the_profile() {
        let profile = Intensity::new(vec![(0, 1.0), (200 * NS_PER_SEC, 0.25)], Interpolation::Step);
        let mut s = OnOff::new(
            0,
            0.4,
            10_000_000,
            20,
            (NS_PER_SEC / 2, NS_PER_SEC),
            1500,
            profile,
            (0, 400 * NS_PER_SEC),
            Rng::for_component(5, 5),
        );
        let (mut c, mut out) = (SourceCounters::default(), Vec::new());
        let mut bytes = [0u64; 2];
        while let Some(t) = s.next_wakeup() {
            out.clear();
            s.advance(t, &mut c, &mut out);
            bytes[(t >= 200 * NS_PER_SEC) as usize] += out.iter().map(|p| p.wire_bytes as u64).sum::<u64>();
        }
        let rate = |b: u64| b as f64 * 8.0 / 200.0;
        // 4 Mbit/s, then a quarter of it; 20 sources of 1.5 s cycles average well over 200 s.
        assert!((rate(bytes[0]) / 4e6 - 1.0).abs() < 0.1, "{}", rate(bytes[0]));
        assert!((rate(bytes[1]) / 1e6 - 1.0).abs() < 0.1, "{}", rate(bytes[1]));
        assert!(c.transfers_started > 2000);
    }
}
