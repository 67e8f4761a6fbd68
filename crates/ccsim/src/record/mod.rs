//! Recording: sampled time series of flows and links, per-ACK RTT samples
//! and their running statistics, gathered into columns.
pub mod link_table;
pub mod pcap;
pub mod recorded;
pub mod rtt_samples;
pub mod rtt_stats;
pub mod series;
pub mod summary;
pub mod table;
