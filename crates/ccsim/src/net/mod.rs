//! The network: packets, queues, channels, delay lines and the link state machine.
pub mod channel;
pub mod delay_line;
pub mod host_queue;
pub mod link;
pub mod outbox;
pub mod packet;
pub mod pool;
pub mod queue;
pub mod ring;
pub mod sack_store;
pub mod topology;
