//! The counters a sender keeps for the results (sim/results.rs).

/// Per-flow counters (Linux: tcp_info and the MIB counters).
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included (throughput).
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Fast recoveries found spurious and undone (Linux TCPFullUndo + TCPPartialUndo).
    pub undone_recoveries: u64,
    /// Timeouts undone as spurious (Linux TCPLossUndo: Eifel, D-SACK or F-RTO).
    pub undone_timeouts: u64,
    /// Timeouts F-RTO found spurious (Linux TCPSpuriousRTOs).
    pub spurious_timeouts: u64,
    /// ACKs whose first SACK block was a D-SACK (Linux TCPDSACKRecv + TCPDSACKOfoRecv).
    pub dsacks_received: u64,
    pub ecn_reductions: u64,
    pub acks_received: u64,
    /// Tail loss probes sent (Linux TCPLossProbes).
    pub loss_probes: u64,
    /// Losses a probe repaired, each with one reduction (Linux TCPLossProbeRecovery).
    pub loss_probe_recoveries: u64,
    /// Segments the sending host's full queue refused (net/host_queue.rs).
    pub local_drops: u64,
}
