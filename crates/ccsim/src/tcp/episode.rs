//! The congestion state (Linux icsk_ca_state) and the current congestion
//! episode (recovery, CWR or loss: Linux tcp_sock's high_seq, prior_cwnd,
//! prior_ssthresh, the PRR counts, undo_marker and icsk_retransmits). Both
//! the state machine (recovery.rs) and F-RTO (frto.rs) read and change them,
//! so they live here, below both.

use super::flight::Flight;
use super::prr::Prr;
use super::undo::Undo;
use crate::cc::CaState;

/// The congestion state and the state of the current congestion episode.
#[derive(Clone, Debug)]
pub(super) struct Episode {
    /// Open, Disorder, CWR, Recovery or Loss; changed by `set_state` only,
    /// which tells the algorithm.
    pub state: CaState,
    /// Recovery point: segments below it were outstanding when the episode began.
    pub high_seq: u64,
    pub prior_cwnd: u32,
    /// ssthresh before the reduction, restored by an undo (Linux prior_ssthresh; 0: none).
    pub prior_ssthresh: u32,
    /// How the window comes down to ssthresh in Recovery and CWR (prr.rs).
    pub prr: Prr,
    /// Retransmission timeouts since the last ACK that advanced snd_una
    /// (Linux icsk_retransmits).
    pub timeouts_in_a_row: u32,
    /// Whether the episode may still be undone, and what would prove it
    /// spurious (undo.rs).
    pub undo: Undo,
}

impl Default for Episode {
    fn default() -> Episode {
        Episode {
            state: CaState::Open,
            high_seq: 0,
            prior_cwnd: 0,
            prior_ssthresh: 0,
            prr: Prr::default(),
            timeouts_in_a_row: 0,
            undo: Undo::default(),
        }
    }
}

impl Episode {
    /// The state becomes `new`; the algorithm hears of it first (Linux
    /// tcp_set_ca_state calls set_state before it stores the state).
    pub fn set_state(&mut self, f: &mut Flight, new: CaState) {
        let c = f.conn(self.state);
        f.cc.set_state(f.w, &c, new);
        self.state = new;
    }
}
