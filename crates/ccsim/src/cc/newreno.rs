//! TCP NewReno (RFC 6582): Reno's window rules, and a fast recovery that
//! lasts until everything outstanding at its start is acknowledged: a partial
//! ACK retransmits the next hole instead of ending recovery, so several
//! losses in one window cost one halving.
//!
//! The recovery itself lives in the sender (`LossResponse::NewReno`, the
//! default); this file holds the window rules.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::{Conn, CongestionControl, Info, LossResponse, Params, Window};

pub const INFO: Info = Info {
    name: "newreno",
    reference: "RFC 6582 (Henderson, Floyd, Gurtov, Nishida 2012)",
    summary: "Reno whose fast recovery survives partial ACKs: one halving per window of losses",
    params: &[],
    state: &[],
};

pub struct NewReno;

impl NewReno {
    pub fn new(_p: &Params) -> NewReno {
        NewReno
    }
}

impl CongestionControl for NewReno {
    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }

    fn loss_response(&self) -> LossResponse {
        LossResponse::NewReno
    }
}
