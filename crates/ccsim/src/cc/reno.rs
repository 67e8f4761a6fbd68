//! TCP Reno (RFC 5681): slow start, congestion avoidance (+1 segment per RTT),
//! fast retransmit and fast recovery (halve, inflate by duplicate ACKs,
//! deflate on the first new ACK).
//!
//! Without SACK, the sender ends fast recovery at the first ACK of new data
//! (`LossResponse::Reno`), so several losses in one window usually cost a
//! second halving or a timeout, which is what distinguishes Reno from NewReno.
//! With SACK on, recovery is SACK-based (RFC 6675) as in Linux, whose "reno"
//! module is this algorithm.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::{Conn, CongestionControl, Info, LossResponse, Params, Window};

pub const INFO: Info = Info {
    name: "reno",
    reference: "RFC 5681 (Allman, Paxson, Blanton 2009); Linux tcp_cong.c tcp_reno",
    summary: "AIMD: +1 segment per RTT, halve on loss; fast recovery ends at the first new ACK",
    params: &[],
    state: &[],
};

pub struct Reno;

impl Reno {
    pub fn new(_p: &Params) -> Reno {
        Reno
    }
}

impl CongestionControl for Reno {
    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }

    fn loss_response(&self) -> LossResponse {
        LossResponse::Reno
    }
}
