//! What happens to packets between the queue and the far end: the
//! transmitter's rate (constant, trace, Markov-modulated, a UMTS DCH set by
//! the traffic volume), outages, loss on
//! the air, link-layer retransmission and delay jitter.

pub mod arq;
pub mod dch;
pub mod jitter;
pub mod loss;
pub mod outage;
pub mod rate;
pub mod trace;
