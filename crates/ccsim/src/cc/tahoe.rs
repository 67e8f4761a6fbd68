//! TCP Tahoe (V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988;
//! 4.3BSD-Tahoe): slow start, congestion avoidance, and fast retransmit; any
//! loss, detected by three duplicate ACKs or by a timeout, sets ssthresh to
//! half the window and restarts slow start from one segment.
//!
//! The window rules are Reno's (`common`); what makes Tahoe is its loss
//! response, `LossResponse::SlowStart`, which the sender applies. With SACK
//! on, the sender retransmits only the holes, but the window still drops to 1.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::{Conn, CongestionControl, Info, LossResponse, Params, Window};

pub const INFO: Info = Info {
    name: "tahoe",
    reference: "Jacobson, Congestion Avoidance and Control, SIGCOMM 1988",
    summary: "slow start, congestion avoidance, fast retransmit; cwnd to 1 on any loss",
    params: &[],
    state: &[],
};

pub struct Tahoe;

impl Tahoe {
    pub fn new(_p: &Params) -> Tahoe {
        Tahoe
    }
}

impl CongestionControl for Tahoe {
    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }

    fn loss_response(&self) -> LossResponse {
        LossResponse::SlowStart
    }
}
