//! The loss recovery an algorithm declares: a fact of the registry (each
//! `Info` names one), which the sender's recovery (tcp/recovery.rs) carries
//! out. It lives with the algorithms so that cc does not import tcp.

/// The sender's answer to a loss detected by duplicate ACKs or SACK. Each
/// registry entry declares one (`Info::recovery`): `tahoe`, `reno` and
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
