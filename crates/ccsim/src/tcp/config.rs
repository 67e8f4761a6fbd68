//! The settings of a sender, fixed when the flow is built
//! (scenario/lower/flow.rs): a file of their own, so that the parts of the
//! sender that read them (send_buffer.rs) need not import the sender.

use super::rtt::RtoStyle;
use super::undo26::UndoStyle;
use crate::cc::Counting;
use crate::time::Nanos;

/// The settings of one sender.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    pub init_cwnd: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub prr: bool,
    /// RACK loss detection for SACK flows (RFC 8985; Linux 4.4+, alone since 4.18).
    pub rack: bool,
    /// Tail loss probes for SACK flows (RFC 8985; Linux 3.10+).
    pub tlp: bool,
    /// RFC 5827 early retransmit with Linux's delay (3.5 to 4.10).
    pub early_retrans: bool,
    /// What the window's growth counts: ACKed segments, or ACKs (before 3.13/4.0).
    pub counting: Counting,
    /// FACK loss marking for SACK flows without RACK (Linux before 4.15).
    pub fack: bool,
    pub pacing: bool,
    pub ecn: bool,
    /// F-RTO after a retransmission timeout, as a Linux release ran it.
    pub frto: FrtoVariant,
    /// How a spurious recovery is undone (undo26.rs).
    pub undo: UndoStyle,
    pub rto_style: RtoStyle,
    pub initial_rto: Nanos,
    pub min_rto: Nanos,
    pub max_rto: Nanos,
    /// Payload bytes of a fixed send buffer (send_buffer.rs), or None for autotuning.
    pub snd_buf: Option<u64>,
    pub wmem_max: u64,
    /// Bytes a segment takes in the automatic send buffer beyond its payload
    /// (its skb truesize less the payload).
    pub snd_skb_overhead: u64,
    pub start: Nanos,
    /// The application stops writing at this time (bulk flows).
    pub stop: Option<Nanos>,
    /// Bytes to transfer (file transfers); None: unlimited (bulk).
    pub size: Option<u64>,
}

impl SenderConfig {
    /// RACK finds this flow's losses (it needs SACK; without, the duplicate
    /// ACKs do).
    #[inline]
    pub fn uses_rack(&self) -> bool {
        self.rack && self.sack
    }
}

/// Which F-RTO the sender runs (`tcp.frto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoVariant {
    Off,
    /// Linux 2.6.22 to 3.9 (RFC 4138, SACK-enhanced with SACK).
    Rfc4138,
    /// Linux 3.10 and later (RFC 5682, inside the Loss state).
    Rfc5682,
}
