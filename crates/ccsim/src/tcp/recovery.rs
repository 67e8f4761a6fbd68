//! Loss recovery of the sender: how it answers a loss that duplicate ACKs or
//! SACKs reveal. This is the sender's policy, not a congestion-control hook:
//! the algorithm only says how far the window goes down (`ssthresh`), the
//! policy says how the sender gets there and when recovery ends.
//!
//! With SACK, `Reno` and `NewReno` both mean SACK-based recovery (RFC 6675,
//! with PRR, as Linux); without SACK they differ in what a partial ACK does.
//! `SlowStart` (Tahoe) applies with and without SACK.

/// The sender's answer to a loss detected by duplicate ACKs or SACK. Each
/// registry entry declares one (`cc::Info::recovery`): `tahoe`, `reno` and
/// `newreno` are one window algorithm with three policies; every other
/// algorithm uses `NewReno`, Linux's behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryPolicy {
    /// Tahoe (4.3BSD-Tahoe): fast retransmit, then slow start from one
    /// segment, as after a timeout (Linux tcp_enter_loss).
    SlowStart,
    /// Reno (RFC 5681): without SACK, fast recovery ends at the first ACK of
    /// new data, so several losses in one window cost a second halving or a timeout.
    Reno,
    /// NewReno (RFC 6582): without SACK, a partial ACK retransmits the next
    /// hole and recovery lasts until everything outstanding at its start is ACKed.
    NewReno,
}
