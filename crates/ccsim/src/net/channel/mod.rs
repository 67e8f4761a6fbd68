//! What happens to packets between the queue and the far end: the
//! transmitter's rate (constant, trace, Markov-modulated), outages, loss on
//! the air, link-layer retransmission and delay jitter.

pub mod arq;
pub mod jitter;
pub mod loss;
pub mod outage;
pub mod rate;
pub mod trace;
