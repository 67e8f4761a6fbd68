//! TCP, segment-level and close to Linux: the sender (send loop, ACK
//! processing, recovery, timers) split by concern, and the receiver.
pub mod ack_scan;
pub mod chrono;
pub mod config;
#[cfg(test)]
pub mod driver;
pub mod dsack;
pub mod early_retransmit;
pub mod episode;
pub mod flight;
pub mod frto;
pub mod loss_detection;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sacked_ranges;
pub mod scoreboard;
pub mod send_buffer;
pub mod sender;
pub mod stats;
pub mod tlp;
pub mod undo;
pub mod undo26;
