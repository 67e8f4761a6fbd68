//! The network: packets, queues, delay lines and the link state machine.
pub mod delay_line;
pub mod link;
pub mod packet;
pub mod queue;
