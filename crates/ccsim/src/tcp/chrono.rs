//! How long a sender was limited by each cause, as Linux's chronograph
//! counters (include/net/tcp.h enum tcp_chrono, tcp_chrono_start/stop in
//! net/ipv4/tcp_output.c; reported as tcpi_busy_time, tcpi_rwnd_limited,
//! tcpi_sndbuf_limited), plus an application-limited count Linux keeps only
//! per rate sample (tp->app_limited).
//!
//! The sender's send loop says why it stopped; the chronograph charges the
//! time since the last change to the previous cause. Only changes of cause
//! cost anything: an unchanged cause is one compare.
//!
//! - Busy: data outstanding or waiting, the window or pacing the limit (the network).
//! - Receive-window limited: the next segment is beyond the receiver's window.
//! - Send-buffer limited: the send buffer is full of unacknowledged data.
//! - Application limited: room to send, data outstanding, nothing more to
//!   send (the tail of a transfer, a stopped application).
//!
//! As tcpi_busy_time, the busy total counts all four; the other three are
//! parts of it, and the busy time minus them is the network-limited time.

use crate::time::Nanos;

/// Why the sender is not sending more right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Nothing outstanding and nothing to send (not started, done, or idle).
    Idle,
    /// Limited by the congestion window or pacing.
    Network,
    ReceiveWindow,
    SendBuffer,
    Application,
}

/// Time per cause, in nanoseconds, and the cause now in effect since `since`.
#[derive(Clone, Copy, Debug)]
pub struct Chrono {
    current: Limit,
    since: Nanos,
    network_ns: Nanos,
    rwnd_limited_ns: Nanos,
    sndbuf_limited_ns: Nanos,
    app_limited_ns: Nanos,
}

/// The totals of a chronograph at one time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ChronoTotals {
    /// Time with data outstanding or waiting (Linux tcpi_busy_time): the sum of the others and the network-limited time.
    pub busy_ns: Nanos,
    pub rwnd_limited_ns: Nanos,
    pub sndbuf_limited_ns: Nanos,
    pub app_limited_ns: Nanos,
}

impl Default for Chrono {
    fn default() -> Chrono {
        Chrono {
            current: Limit::Idle,
            since: 0,
            network_ns: 0,
            rwnd_limited_ns: 0,
            sndbuf_limited_ns: 0,
            app_limited_ns: 0,
        }
    }
}

impl Chrono {
    /// From `now` on, `limit` is the cause (Linux tcp_chrono_set).
    #[inline]
    pub fn set(&mut self, now: Nanos, limit: Limit) {
        if limit != self.current {
            self.charge(now);
            self.current = limit;
        }
    }

    fn charge(&mut self, now: Nanos) {
        let elapsed = now.saturating_sub(self.since);
        self.since = now;
        match self.current {
            Limit::Idle => {}
            Limit::Network => self.network_ns += elapsed,
            Limit::ReceiveWindow => self.rwnd_limited_ns += elapsed,
            Limit::SendBuffer => self.sndbuf_limited_ns += elapsed,
            Limit::Application => self.app_limited_ns += elapsed,
        }
    }

    /// The totals up to `now`, the current cause included (Linux tcp_get_info_chrono_stats).
    pub fn totals(&self, now: Nanos) -> ChronoTotals {
        let mut upto = *self;
        upto.charge(now);
        ChronoTotals {
            busy_ns: upto.network_ns + upto.rwnd_limited_ns + upto.sndbuf_limited_ns + upto.app_limited_ns,
            rwnd_limited_ns: upto.rwnd_limited_ns,
            sndbuf_limited_ns: upto.sndbuf_limited_ns,
            app_limited_ns: upto.app_limited_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_charged_the_time_until_the_next_change() {
        let mut c = Chrono::default();
        c.set(10, Limit::Network);
        c.set(15, Limit::Network);
        c.set(30, Limit::SendBuffer);
        c.set(100, Limit::ReceiveWindow);
        c.set(120, Limit::Application);
        c.set(125, Limit::Idle);
        c.set(1000, Limit::Network);
        let t = c.totals(1010);
        assert_eq!(t.sndbuf_limited_ns, 70);
        assert_eq!(t.rwnd_limited_ns, 20);
        assert_eq!(t.app_limited_ns, 5);
        assert_eq!(t.busy_ns, 20 + 70 + 20 + 5 + 10);
        // Reading the totals does not change them.
        assert_eq!(c.totals(1010), t);
    }
}
