//! Link-layer retransmission (ARQ), as UMTS RLC acknowledged mode and LTE
//! HARQ do it (3GPP TS 25.322, TS 36.321 5.4.2): a frame lost on the air is
//! sent again, up to `max_retries` times, each try one `retry_delay` (the HARQ
//! round trip, 8 ms in LTE FDD) after the previous one. A frame lost on every
//! try is a residual loss, which TCP must repair.
//!
//! Try i (0-based) of a frame that left the transmitter at t reaches the far
//! end at t + i * retry_delay; a frame lost on all K+1 tries is given up at
//! t + (K+1) * retry_delay, when the last negative feedback comes back.
//!   in order (RLC AM):  a frame is handed on no earlier than every frame before
//!                       it (delivered or given up): head-of-line blocking.
//!   out of order (as HARQ itself, or RLC UM with reordering off): each frame
//!                       goes on as soon as it got through.
//!
//! Transport blocks (`tti_ns` > 0): the air carries one transport block per
//! TTI (1 ms in LTE, TS 36.211 4.1), and its block error decides the fate of
//! every packet in it; the frames whose transmissions end in the same TTI
//! share one draw (a per-packet draw would make a block of several packets
//! fail more often, and hold more packets behind its retry, than the BLER
//! target says). With 0 each frame is its own block.
//!
//! Deviation: retries take no capacity from the link's rate (LTE runs 8 HARQ
//! processes in parallel, and measured traces already show the capacity net of
//! retransmissions); they only add delay.

use super::loss::Loss;
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArqConfig {
    pub max_retries: u32,
    pub retry_delay_ns: Nanos,
    pub in_order: bool,
    /// Frames ending in the same TTI of this length share one block's fate (0: each frame its own).
    pub tti_ns: Nanos,
}

/// What happened to one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArqOutcome {
    /// Tries lost on the air.
    pub failed_tries: u32,
    /// When the frame leaves the link layer toward the far end; None: residual loss.
    pub delivered_at: Option<Nanos>,
}

pub struct Arq {
    config: ArqConfig,
    /// In order: no frame leaves before this (the previous frame's release).
    release_ns: Nanos,
    /// The TTI of the last block drawn and its failed tries.
    block: Option<(Nanos, u32)>,
}

impl Arq {
    pub fn new(config: ArqConfig) -> Arq {
        Arq { config, release_ns: 0, block: None }
    }

    /// Sends a frame that left the transmitter at `t` over the lossy channel.
    #[inline]
    pub fn send(&mut self, t: Nanos, loss: &mut Loss) -> ArqOutcome {
        let tries = self.config.max_retries + 1;
        let tti = (self.config.tti_ns > 0).then(|| t.saturating_sub(1) / self.config.tti_ns);
        let failed = match (tti, self.block) {
            (Some(i), Some((j, f))) if i == j => f,
            _ => {
                let mut failed = 0;
                while failed < tries && loss.lose() {
                    failed += 1;
                }
                self.block = tti.map(|i| (i, failed));
                failed
            }
        };
        let d = self.config.retry_delay_ns;
        let done = t + failed as Nanos * d;
        let delivered = failed < tries;
        let leaves = if self.config.in_order {
            let at = done.max(self.release_ns);
            self.release_ns = at;
            at
        } else {
            done
        };
        ArqOutcome { failed_tries: failed, delivered_at: delivered.then_some(leaves) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::channel::loss::LossModel;
    use crate::rng::Rng;

    fn residual(k: u32, n: usize) -> (f64, f64) {
        let mut arq = Arq::new(ArqConfig { max_retries: k, retry_delay_ns: 8_000_000, in_order: false, tti_ns: 0 });
        let mut loss = Loss::new(LossModel::Bernoulli { p: 0.1 }, Rng::for_component(5, 6));
        let (mut lost, mut retries) = (0, 0u64);
        for i in 0..n {
            let o = arq.send(i as Nanos * 1000, &mut loss);
            lost += o.delivered_at.is_none() as usize;
            retries += o.failed_tries.min(k) as u64;
        }
        (lost as f64 / n as f64, retries as f64 / n as f64)
    }

    #[test]
    fn k_retries_turn_ten_percent_into_ten_to_the_k_plus_one() {
        for k in 0..=2u32 {
            let expected = 0.1f64.powi(k as i32 + 1);
            let n = 2_000_000;
            let (rate, retries) = residual(k, n);
            let sigma = (expected / n as f64).sqrt();
            assert!((rate - expected).abs() < 5.0 * sigma + 1e-9, "K={k}: residual {rate}, expected {expected}");
            // Mean retries per frame: 0.1 + 0.01 + ... (K terms).
            let expected_retries: f64 = (1..=k).map(|i| 0.1f64.powi(i as i32)).sum();
            assert!((retries - expected_retries).abs() < 0.002, "K={k}: retries {retries}");
        }
    }

    #[test]
    fn in_order_blocks_behind_retries_out_of_order_does_not() {
        let d = 8_000_000;
        for in_order in [false, true] {
            let mut arq = Arq::new(ArqConfig { max_retries: 3, retry_delay_ns: d, in_order, tti_ns: 0 });
            let mut loss = Loss::new(LossModel::Bernoulli { p: 0.3 }, Rng::for_component(2, 2));
            let (mut last, mut blocked, mut overtaken) = (0, 0, 0);
            for i in 0..10_000u64 {
                let t = i * 1_000_000; // one frame per ms
                let o = arq.send(t, &mut loss);
                let Some(at) = o.delivered_at else { continue };
                let extra = at - t;
                if extra != o.failed_tries as Nanos * d {
                    blocked += 1; // waited for an earlier frame
                }
                if at < last {
                    overtaken += 1;
                }
                last = last.max(at);
            }
            if in_order {
                assert!(blocked > 1000 && overtaken == 0, "blocked {blocked}, overtaken {overtaken}");
            } else {
                assert!(blocked == 0 && overtaken > 1000, "blocked {blocked}, overtaken {overtaken}");
            }
        }
    }

    #[test]
    fn residual_loss_holds_the_line_until_given_up() {
        let mut arq = Arq::new(ArqConfig { max_retries: 2, retry_delay_ns: 10, in_order: true, tti_ns: 0 });
        let mut all = Loss::new(LossModel::Bernoulli { p: 1.0 }, Rng::for_component(1, 1));
        let mut none = Loss::new(LossModel::None, Rng::for_component(1, 1));
        assert_eq!(arq.send(0, &mut all), ArqOutcome { failed_tries: 3, delivered_at: None });
        // Given up at 0 + 3 * 10: the next frame, through at once at 5, waits till 30.
        assert_eq!(arq.send(5, &mut none).delivered_at, Some(30));
    }

    /// Transport blocks: the frames of one TTI share their fate, and the
    /// residual loss per block is BLER^(K+1) (K = max_retries).
    #[test]
    fn frames_of_one_tti_share_one_blocks_fate() {
        let tti = 1_000_000;
        let mut arq = Arq::new(ArqConfig { max_retries: 3, retry_delay_ns: 8_000_000, in_order: false, tti_ns: tti });
        let mut loss = Loss::new(LossModel::Bernoulli { p: 0.1 }, Rng::for_component(3, 3));
        let (blocks, per_block) = (400_000u64, 3u64);
        let (mut lost_blocks, mut retried_blocks) = (0u64, 0u64);
        for b in 0..blocks {
            // Three frames end inside TTI b (at 0.25, 0.5 and 1.0 ms of it).
            let outcomes: Vec<ArqOutcome> =
                (1..=per_block).map(|k| arq.send(b * tti + k * tti / per_block, &mut loss)).collect();
            assert!(outcomes.iter().all(|o| o.failed_tries == outcomes[0].failed_tries), "block {b}");
            lost_blocks += outcomes[0].delivered_at.is_none() as u64;
            retried_blocks += (outcomes[0].failed_tries > 0) as u64;
        }
        let bler = retried_blocks as f64 / blocks as f64;
        assert!((bler - 0.1).abs() < 0.003, "first-transmission BLER {bler}");
        let residual = lost_blocks as f64 / blocks as f64;
        let expected = 0.1f64.powi(4);
        let sigma = (expected / blocks as f64).sqrt();
        assert!((residual - expected).abs() < 5.0 * sigma, "residual {residual}, expected {expected}");
    }
}
