//! Recording: sampled time series of flows and links, per-ACK RTT samples,
//! gathered into columns.
pub mod link_table;
pub mod pcap;
pub mod series;
pub mod table;
