//! What the recovery component (recovery.rs, frto.rs) borrows of the sender
//! for one step: the window, the algorithm, the scoreboard, the loss
//! detectors and the counters, and the few facts of the sender it only
//! reads. The sender lends them for one call (`flight!` in sender.rs); a test
//! lends its own, so recovery decisions are tested without a whole sender.

use super::config::SenderConfig;
use super::loss_detection::LossDetection;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::stats::SenderStats;
use crate::cc::{Algorithm, CaState, Conn, Window};
use crate::time::Nanos;

/// The sender's parts one recovery step reads and changes.
pub(super) struct Flight<'a> {
    pub now: Nanos,
    pub cfg: &'a SenderConfig,
    pub w: &'a mut Window,
    pub cc: &'a mut Algorithm,
    pub sb: &'a mut Scoreboard,
    pub loss: &'a mut LossDetection,
    pub stats: &'a mut SenderStats,
    pub rtt: &'a RttEstimator,
    /// Segments delivered so far, and of them with an ECN echo (for `Conn`;
    /// a recovery step does not change them).
    pub delivered: u64,
    pub delivered_ce: u64,
    /// Linux tcp_cwnd_validate's state, for `Conn::is_cwnd_limited`.
    pub cwnd_limited: bool,
    pub max_packets_out: u32,
    /// The retransmission timer's deadline (early retransmit waits within it).
    pub rto_at: Option<Nanos>,
    /// The pacing clock: a loss episode retransmits at once (Linux
    /// tcp_enter_loss sends without waiting for the pacing timer).
    pub next_send_at: &'a mut Nanos,
    /// The ACK being handled echoed congestion (ECN on; kept between ACKs).
    pub ece: bool,
    /// The algorithm sets the window on every ACK (Linux cong_control):
    /// recovery leaves cwnd alone.
    pub cc_owns_window: bool,
    /// A new segment may go, the window aside (`Sender::may_send_new_segment`;
    /// a recovery step does not change what it reads).
    pub may_send_new: bool,
}

impl Flight<'_> {
    /// The `Conn` the algorithm's hooks see now, in state `state` (the
    /// sender's `conn`, made here only when a hook is called: most steps
    /// call none).
    pub fn conn(&self, state: CaState) -> Conn {
        conn_view(
            self.now,
            self.cfg,
            self.rtt,
            self.sb,
            self.w,
            (self.delivered, self.delivered_ce),
            (self.cwnd_limited, self.max_packets_out),
            state,
        )
    }

    /// RACK finds the losses (`SenderConfig::uses_rack`).
    pub fn uses_rack(&self) -> bool {
        self.cfg.uses_rack()
    }

    /// RACK's reordering window now (rack.rs), in state `state`.
    pub fn rack_reo_wnd(&self, state: CaState) -> Nanos {
        self.loss.rack_reo_wnd(self.sb, self.rtt, state)
    }
}

/// The `Conn` an algorithm's hooks read: one definition for the sender's
/// hooks (`conn_of!` in sender.rs) and a recovery step's (`Flight::conn`).
/// `delivered` is (segments, of them with an ECN echo); `cwnd_use` is Linux
/// tcp_cwnd_validate's (is_cwnd_limited, max_packets_out).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn conn_view(
    now: Nanos,
    cfg: &SenderConfig,
    rtt: &RttEstimator,
    sb: &Scoreboard,
    w: &Window,
    delivered: (u64, u64),
    cwnd_use: (bool, u32),
    state: CaState,
) -> Conn {
    let (cwnd_limited, max_packets_out) = cwnd_use;
    Conn {
        now,
        mss: cfg.mss,
        srtt_ns: rtt.srtt().unwrap_or(0),
        min_rtt_ns: rtt.min_rtt().unwrap_or(0),
        delivered: delivered.0,
        delivered_ce: delivered.1,
        in_flight: sb.in_flight(),
        packets_out: sb.packets_out(),
        snd_nxt: sb.nxt(),
        snd_una: sb.una(),
        is_cwnd_limited: cwnd_limited || (w.in_slow_start() && w.cwnd < 2 * max_packets_out),
        ca_state: Some(state),
    }
}

/// The `Flight` sender `$s` (sender.rs) lends for one step at `$now`: the
/// values first, then the borrows of the fields a step changes, all but
/// `recovery` itself. Written out where the sender calls recovery, so each
/// borrow is of one field and `self.recovery` stays free.
macro_rules! flight {
    ($s:expr, $now:expr) => {
        Flight {
            may_send_new: $s.may_send_new_segment(),
            now: $now,
            delivered: $s.rate.delivered,
            delivered_ce: $s.delivered_ce,
            cwnd_limited: $s.is_cwnd_limited,
            max_packets_out: $s.max_packets_out,
            rto_at: $s.rto_at,
            ece: $s.ece_seen_this_ack,
            cc_owns_window: $s.cc_owns_window,
            cfg: &$s.cfg,
            rtt: &$s.rtt,
            w: &mut $s.w,
            cc: &mut $s.cc,
            sb: &mut $s.sb,
            loss: &mut $s.loss,
            stats: &mut $s.stats,
            next_send_at: &mut $s.next_send_at,
        }
    };
}
pub(super) use flight;
