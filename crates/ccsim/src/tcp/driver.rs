//! A test driver for the sender: one flow whose every ACK the test writes,
//! so a recovery rule is a few lines ("send 20, SACK 1..4, check cwnd").
//! Time advances only when the test says; the ACKs echo the timestamp of the
//! segment they acknowledge, as a receiver would.

use super::rtt::RtoStyle;
use super::sender::{Sender, SenderConfig};
use crate::net::packet::{Kind, Packet, SackBlock};
use crate::time::{Nanos, NS_PER_MS};
use std::collections::BTreeMap;

pub struct Driver {
    pub s: Sender,
    pub now: Nanos,
    /// The receive window the ACKs offer, in segments.
    pub rwnd: u32,
    /// The ACKs echo congestion experienced (ECE).
    pub ece: bool,
    /// TSval of the latest transmission of each segment.
    sent_ts: BTreeMap<u64, Nanos>,
    /// The packets the latest call sent.
    pub sent: Vec<Packet>,
}

impl Driver {
    /// A SACK + timestamps + PRR sender of algorithm `cc` with an initial
    /// window of `init_cwnd`, MSS 1000 and a 1 s initial RTO; its losses are
    /// found by RFC 6675 DupThresh, without RACK or tail loss probes.
    pub fn new(cc: &str, init_cwnd: u32) -> Driver {
        Driver::with_timestamps(cc, init_cwnd, true)
    }

    /// The same sender with RACK and tail loss probes, as modern Linux.
    pub fn modern(cc: &str, init_cwnd: u32) -> Driver {
        let mut d = Driver::new(cc, init_cwnd);
        d.s.cfg.rack = true;
        d.s.cfg.tlp = true;
        d
    }

    /// The same sender, with or without the timestamp option.
    pub fn with_timestamps(cc: &str, init_cwnd: u32, timestamps: bool) -> Driver {
        let cfg = config(init_cwnd, timestamps);
        let algorithm = crate::cc::build(cc, &BTreeMap::new(), cfg.mss).expect("known algorithm");
        Driver {
            s: Sender::new(0, cfg, algorithm),
            now: 1,
            rwnd: 1000,
            ece: false,
            sent_ts: BTreeMap::new(),
            sent: vec![],
        }
    }

    fn record(&mut self, out: Vec<Packet>) -> Vec<u64> {
        for p in &out {
            self.sent_ts.insert(p.seq, p.ts_val);
        }
        let seqs = out.iter().map(|p| p.seq).collect();
        self.sent = out;
        seqs
    }

    /// Starts the flow: the segments of the initial window.
    pub fn start(&mut self) -> Vec<u64> {
        let mut out = Vec::new();
        self.s.on_timer(self.now, &mut out);
        self.record(out)
    }

    /// An ACK `gap_ms` later: cumulative point `cum`, SACK blocks `[start, end)`,
    /// echoing `ts_ecr`. Returns the segments sent in response.
    pub fn ack_echo(&mut self, gap_ms: u64, cum: u64, sack: &[(u64, u64)], ts_ecr: Nanos) -> Vec<u64> {
        self.now += gap_ms * NS_PER_MS;
        let mut p = Packet::new(Kind::Ack, 0, 52);
        p.seq = cum;
        p.window = self.rwnd;
        p.ts_val = self.now;
        p.ts_ecr = ts_ecr;
        p.ece = self.ece;
        let blocks: Vec<SackBlock> = sack.iter().map(|&(start, end)| SackBlock { start, end }).collect();
        let mut out = Vec::new();
        self.s.on_ack(self.now, &p, &blocks, &mut out);
        self.record(out)
    }

    /// An ACK echoing the timestamp of the newest segment it covers (the last
    /// SACKed one, else the one below `cum`).
    pub fn ack(&mut self, gap_ms: u64, cum: u64, sack: &[(u64, u64)]) -> Vec<u64> {
        let newest = sack.last().map_or(cum, |b| b.1).saturating_sub(1);
        let ts_ecr = self.sent_ts.get(&newest).copied().unwrap_or(1);
        self.ack_echo(gap_ms, cum, sack, ts_ecr)
    }

    /// Advances to the sender's next timer (the retransmission timer, a loss
    /// probe or RACK's reordering timer) and fires it.
    pub fn timeout(&mut self) -> Vec<u64> {
        self.now = self.s.next_wakeup(self.now).expect("a pending timer");
        let mut out = Vec::new();
        self.s.on_timer(self.now, &mut out);
        self.record(out)
    }
}

/// The driver's sender configuration (see `Driver::new`): SACK, PRR, MSS
/// 1000, a 1 s initial RTO, no RACK, loss probes, F-RTO or ECN; with or
/// without timestamps. Also for the tests that hand recovery its parts
/// without a sender (recovery.rs).
pub fn config(init_cwnd: u32, timestamps: bool) -> SenderConfig {
    SenderConfig {
        mss: 1000,
        init_cwnd,
        sack: true,
        timestamps,
        prr: true,
        rack: false,
        tlp: false,
        early_retrans: false,
        counting: crate::cc::Counting::Segments,
        fack: false,
        pacing: false,
        ecn: false,
        frto: super::frto::FrtoVariant::Off,
        undo: super::undo26::UndoStyle::Modern,
        rto_style: RtoStyle::Linux,
        initial_rto: 1000 * NS_PER_MS,
        min_rto: 200 * NS_PER_MS,
        max_rto: 120_000 * NS_PER_MS,
        snd_buf: None,
        wmem_max: 4 << 20,
        snd_skb_overhead: 0,
        start: 0,
        stop: None,
        size: None,
    }
}
