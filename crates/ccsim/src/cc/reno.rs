//! The Reno window algorithm (RFC 5681; Linux tcp_cong.c tcp_reno): slow
//! start, congestion avoidance (+1 segment per RTT), halve on loss.
//!
//! It is registered under three names that differ only in the sender's
//! loss recovery (`cc::RecoveryPolicy`), which each entry declares:
//! - `tahoe` (Jacobson, SIGCOMM 1988; 4.3BSD-Tahoe): any loss, detected by
//!   three duplicate ACKs or by a timeout, restarts slow start from one
//!   segment (with SACK the sender retransmits only the holes, but the window
//!   still drops to 1);
//! - `reno`: fast recovery ends at the first ACK of new data (without SACK);
//! - `newreno` (RFC 6582): a partial ACK retransmits the next hole instead of
//!   ending recovery, so several losses in one window cost one halving.
//!
//! With SACK, reno and newreno both recover by SACK (RFC 6675), as Linux,
//! whose "reno" module is this algorithm.

use super::common::{reno_cong_avoid, reno_min_cwnd, reno_ssthresh};
use super::RecoveryPolicy;
use super::{CongestionControl, Conn, Info, LinuxModule, Params, Role, Window};

pub const TAHOE: Info = Info {
    name: "tahoe",
    reference: "Jacobson, Congestion Avoidance and Control, SIGCOMM 1988",
    summary: "slow start, congestion avoidance, fast retransmit; cwnd to 1 on any loss",
    recovery: RecoveryPolicy::SlowStart,
    params: &[],
    state: &[],
    // Superseded by Reno's fast recovery (Jacobson 1990; RFC 5681 section 3.2).
    role: Role::Historical,
    linux: LinuxModule::SimulatorOnly { why: "Tahoe (no Linux module)" },
    ns3: None,
};

pub const INFO: Info = Info {
    name: "reno",
    reference: "RFC 5681 (Allman, Paxson, Blanton 2009); Linux tcp_cong.c tcp_reno",
    summary: "AIMD: +1 segment per RTT, halve on loss; fast recovery ends at the first new ACK",
    recovery: RecoveryPolicy::Reno,
    params: &[],
    state: &[],
    role: Role::General,
    linux: LinuxModule::Mainline("reno"),
    ns3: None,
};

pub const NEWRENO: Info = Info {
    name: "newreno",
    reference: "RFC 6582 (Henderson, Floyd, Gurtov, Nishida 2012)",
    summary: "Reno whose fast recovery survives partial ACKs: one halving per window of losses",
    recovery: RecoveryPolicy::NewReno,
    params: &[],
    state: &[],
    role: Role::General,
    // Linux builds NewReno into the stack (tcp_fastretrans_alert): its reno module recovers as this.
    linux: LinuxModule::Mainline("reno"),
    ns3: Some("ns3::TcpNewReno"),
};

pub struct Reno;

impl Reno {
    pub fn new(_p: &Params) -> Reno {
        Reno
    }
}

impl CongestionControl for Reno {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }
}
