//! Loss recovery of the sender (Linux net/ipv4/tcp_input.c): the congestion
//! state machine (Open, Disorder, CWR, Recovery, Loss) of
//! tcp_fastretrans_alert, entering recovery, CWR and loss, proportional rate
//! reduction (RFC 6937), undo of a spurious recovery or timeout (Eifel
//! timestamps, RFC 3522, and D-SACK, RFC 3708: dsack.rs), the reordering
//! degree learned without SACK (tcp_check_reno_reordering, partial undo), and
//! the retransmission timeout (tcp_enter_loss, or F-RTO: frto.rs). The
//! sender (sender.rs) keeps one `Recovery` and calls it from its ACK and
//! timer paths, lending it for each step what the step reads and changes
//! (`Flight`, flight.rs: window, algorithm, scoreboard, loss detection,
//! counters), so a decision can be tested with a hand-made flight; the
//! algorithm's hooks are called here in the order cc/hooks.rs documents.
//!
//! How the sender answers a loss is its policy, not a congestion-control
//! hook: the algorithm only says how far the window goes down (`ssthresh`),
//! the `RecoveryPolicy` says how the sender gets there and when recovery
//! ends. With SACK, `Reno` and `NewReno` both mean SACK-based recovery (RFC
//! 6675, with PRR, as Linux); without SACK they differ in what a partial ACK
//! does. `SlowStart` (Tahoe) applies with and without SACK.

use super::ack_scan::AckFlags;
use super::config::SenderConfig;
use super::episode::Episode;
use super::flight::Flight;
use super::frto::{FrtoState, FrtoVariant, LossAck};
use super::scoreboard::Scoreboard;
use super::undo26::{self, UndoStyle};
use crate::cc::{Algorithm, CaEvent, CaState, RecoveryPolicy, Window, INFINITE_SSTHRESH};
use crate::time::Nanos;

/// The sender's recovery: its congestion state and episode, F-RTO, and the
/// CWR flag a reduction queues. Each step borrows the rest (`Flight`).
#[derive(Clone, Debug)]
pub struct Recovery {
    /// The congestion state and the current congestion episode (recovery, CWR or loss).
    pub(super) episode: Episode,
    /// F-RTO between ACKs (frto.rs).
    pub(super) frto: FrtoState,
    /// CWR goes on the next new data (Linux TCP_ECN_QUEUE_CWR): queued by
    /// every window reduction, withdrawn by an undo that restores ssthresh.
    pub(super) cwr_pending: bool,
    /// How losses revealed by duplicate ACKs or SACK are recovered (declared by the registry entry).
    policy: RecoveryPolicy,
}

/// What one ACK delivered, as the reduction under way counts it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Delivered {
    /// Segments newly delivered (PRR).
    pub segments: u32,
    /// The ACK advanced snd_una and marked nothing lost (PRR's extra segment).
    pub una_advanced_without_loss: bool,
    /// What rate halving counts (every duplicate ACK, without SACK).
    pub for_halving: u32,
}

impl Recovery {
    pub(super) fn new(policy: RecoveryPolicy) -> Recovery {
        Recovery { episode: Episode::default(), frto: FrtoState::default(), cwr_pending: false, policy }
    }

    /// The congestion state (Linux icsk_ca_state).
    pub fn state(&self) -> CaState {
        self.episode.state
    }

    /// Linux tcp_ack_is_dubious: whether the ACK goes to the state machine
    /// (`fastretrans_alert`). An in-order ACK in Open does not. `ece`: it
    /// echoed congestion.
    #[inline(always)]
    pub(super) fn ack_is_dubious(&self, ack: &AckFlags, ece: bool) -> bool {
        self.episode.state != CaState::Open || !ack.data_acked || ack.data_sacked || ack.dsack || ece
    }

    /// Linux tcp_fastretrans_alert, reduced to the states we model: the
    /// episode's exit and undo checks, then RACK's loss marking in the state
    /// they leave (identify_packet_loss), then the start of a new episode.
    /// `ack_tsecr`: the ACK's timestamp echo (0 without timestamps).
    #[inline(never)]
    pub(super) fn fastretrans_alert(&mut self, f: &mut Flight, ack: &AckFlags, prior_una: u64, ack_tsecr: Nanos) {
        // Step A: congestion the network signalled is no reduction to undo.
        if f.ece {
            self.episode.prior_ssthresh = 0;
        }
        // RFC 5682 F-RTO (Linux 3.10+ tcp_process_loss) judges the ACKs of a
        // Loss episode it runs in, after the timestamp and D-SACK undo.
        let in_loss = self.episode.state == CaState::Loss;
        let loss_undo = in_loss && ack.data_acked && self.may_undo(f.cfg, ack_tsecr);
        let frto_took_ack = in_loss && !loss_undo && self.process_loss_frto(f, ack);
        if !frto_took_ack && self.check_episode_end(f, ack, prior_una, ack_tsecr) {
            return;
        }
        let lost_retransmission = self.identify_packet_loss(f);
        // Recovery goes on; Loss goes on unless its timeout was undone or a
        // retransmission was lost (then Linux falls through to Open's checks).
        let open_checks = match self.episode.state {
            CaState::Open | CaState::Disorder | CaState::Cwr => true,
            CaState::Loss => lost_retransmission,
            CaState::Recovery => false,
        };
        if open_checks && self.frto.counter == 0 {
            self.start_episode_or_keep_open(f);
        }
    }

    /// The RFC 5682 F-RTO's turn on an ACK in Loss (frto.rs). Returns true
    /// when the ACK was F-RTO's (nothing else to do in Loss).
    fn process_loss_frto(&mut self, f: &mut Flight, ack: &AckFlags) -> bool {
        match self.frto.process_in_loss(&mut self.episode, f, ack) {
            LossAck::Passed => false,
            LossAck::Taken => true,
            LossAck::SpuriousTimeout => {
                f.stats.spurious_timeouts += 1;
                self.undo_loss(f, true);
                true
            }
        }
    }

    /// The RFC 4138 F-RTO's turn on an ACK while it runs (frto.rs), before
    /// the loss marking. Returns true when the window must not grow on it.
    pub(super) fn process_frto(&mut self, f: &mut Flight, ack: &AckFlags) -> bool {
        self.frto.process(&mut self.episode, f, ack)
    }

    /// Linux tcp_identify_packet_loss with RACK (4.18+): RACK alone marks
    /// losses, lost retransmissions included, judged with the reordering
    /// window of the state the ACK left the sender in. Returns whether a
    /// retransmission was marked lost (FLAG_LOST_RETRANS). Flows without
    /// RACK mark theirs before the state machine (loss_detection.rs), as Linux
    /// before 4.18 did with SACK.
    fn identify_packet_loss(&mut self, f: &mut Flight) -> bool {
        if !f.uses_rack() || self.frto.counter > 0 {
            return false;
        }
        let reo_wnd = f.rack_reo_wnd(self.episode.state);
        f.loss.rack_mark_lost(f.sb, f.now, reo_wnd)
    }

    /// Steps D and E of Linux tcp_fastretrans_alert before the loss marking:
    /// the end of an episode at its recovery point, the undo of a spurious
    /// one, NewReno's partial ACK. Returns true when a partial undo holds the
    /// ACK (a retransmission is still out: nothing more is marked lost).
    fn check_episode_end(&mut self, f: &mut Flight, ack: &AckFlags, prior_una: u64, ack_tsecr: Nanos) -> bool {
        let una = f.sb.una();
        let acked_new = ack.data_acked;
        let state = self.episode.state;
        let high_seq = self.episode.high_seq;
        let mut held_by_partial_undo = false;
        match state {
            // Linux tcp_try_undo_recovery: the recovery was spurious. Without
            // SACK the duplicate ACKs are forgotten first (tcp_fastretrans_alert
            // resets them whenever recovery reaches high_seq).
            CaState::Recovery if una >= high_seq && acked_new && self.may_undo(f.cfg, ack_tsecr) => {
                if !f.cfg.sack {
                    f.sb.reset_reno_sacks();
                }
                self.undo_recovery(f, prior_una);
            }
            CaState::Recovery if acked_new && self.may_undo(f.cfg, ack_tsecr) => {
                if f.cfg.sack {
                    f.sb.note_reordering(prior_una);
                } else {
                    f.sb.note_reno_reordering(ack.cum_acked);
                }
                held_by_partial_undo = if undoes_as_2_6(f.cfg) {
                    let ep = &mut self.episode;
                    undo26::undo_partial(f.w, f.cc, f.sb, &mut ep.undo, ep.prior_cwnd, ep.prior_ssthresh);
                    true
                } else {
                    !self.undo_partial(f)
                };
            }
            // Linux tcp_try_undo_dsack: every retransmission came back as a duplicate.
            CaState::Open | CaState::Disorder | CaState::Recovery
                if self.episode.undo.all_retransmissions_dsacked() && f.cfg.undo.dsack_undo_allowed_in(state) =>
            {
                self.undo_reduction(f);
            }
            // Linux tcp_try_undo_loss: the timeout was spurious (Eifel or D-SACK).
            CaState::Loss if acked_new && self.may_undo(f.cfg, ack_tsecr) => {
                self.undo_loss(f, false);
            }
            // CWR lasts until data above its recovery point is ACKed, so the
            // CWR flag has reached the receiver (Linux tcp_fastretrans_alert).
            CaState::Recovery | CaState::Loss | CaState::Cwr
                if acked_new && (una > high_seq || (una == high_seq && state != CaState::Cwr)) =>
            {
                // End of the episode: the window settles at ssthresh (Linux
                // tcp_end_cwnd_reduction), unless the algorithm sets it (cong_control).
                if state != CaState::Loss && !f.cc_owns_window && f.w.ssthresh < INFINITE_SSTHRESH {
                    // Without PRR (rate halving, Linux before 3.2, tcp_complete_cwr)
                    // the window only comes down to ssthresh, never up.
                    f.w.cwnd = if f.cfg.prr { f.w.ssthresh } else { f.w.cwnd.min(f.w.ssthresh) };
                    let c = f.conn(state);
                    f.cc.cwnd_event(f.w, &c, CaEvent::CompleteCwr);
                }
                if !f.cfg.sack {
                    f.sb.reset_reno_sacks();
                }
                // Linux tcp_try_undo_recovery: a recovery that ends without
                // an undo counts towards RACK's return to its narrow window.
                if state != CaState::Cwr && f.uses_rack() {
                    f.loss.rack.on_recovery_exit();
                }
                self.episode.set_state(f, CaState::Open);
            }
            CaState::Recovery if !f.cfg.sack && acked_new => {
                if self.policy == RecoveryPolicy::Reno {
                    // RFC 5681: deflate and leave recovery at the first new ACK.
                    f.w.cwnd = f.w.ssthresh;
                    f.sb.reset_reno_sacks();
                    self.episode.set_state(f, CaState::Open);
                } else {
                    // RFC 6582 partial ACK: retransmit the next hole.
                    f.sb.mark_head_lost();
                }
            }
            // Linux tcp_fastretrans_alert (Open, Disorder, CWR): without SACK
            // an ACK of new data starts the duplicate-ACK count over, so only
            // duplicates in a row reach the reordering degree. (A partial
            // undo, above, keeps the count of its recovery.)
            CaState::Open | CaState::Disorder | CaState::Cwr if !f.cfg.sack && acked_new => {
                f.sb.reset_reno_sacks();
            }
            _ => {}
        }
        held_by_partial_undo
    }

    /// A loss the tail loss probe repaired (tlp.rs): one reduction, as a
    /// CWR that ends at once (tcp_init_cwnd_reduction,
    /// tcp_end_cwnd_reduction, tcp_try_keep_open).
    pub(super) fn reduce_after_repaired_tail_loss(&mut self, f: &mut Flight) {
        f.stats.loss_probe_recoveries += 1;
        self.episode.undo.possible = false;
        self.init_cwnd_reduction(f);
        self.episode.set_state(f, CaState::Cwr);
        if !f.cc_owns_window && f.w.ssthresh < INFINITE_SSTHRESH {
            f.w.cwnd = f.w.ssthresh;
        }
        let c = f.conn(self.episode.state);
        f.cc.cwnd_event(f.w, &c, CaEvent::CompleteCwr);
        let left_out = f.sb.sacked_out + f.sb.lost_out + f.sb.retrans_out > 0;
        self.episode.set_state(f, if left_out { CaState::Disorder } else { CaState::Open });
    }

    /// Early retransmit (early_retransmit.rs), when on, for an ACK that
    /// found no loss: the first segment is lost now (or after its wait).
    fn early_retransmit_now(&mut self, f: &mut Flight) -> bool {
        if !f.cfg.early_retrans {
            return false;
        }
        let may_send_new = f.may_send_new && f.sb.in_flight() < f.w.cwnd;
        f.loss.early_retransmit.head_lost_now(f.sb, may_send_new, f.rtt.srtt(), f.ece, f.rto_at, f.now)
    }

    /// Linux tcp_resume_early_retransmit: the wait ended without an ACK,
    /// so the loss episode starts with the first segment lost.
    pub(super) fn on_early_retransmit_timer(&mut self, f: &mut Flight) {
        f.loss.early_retransmit.timer_at = None;
        if f.sb.packets_out() > 0 && matches!(self.episode.state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            f.sb.mark_head_lost();
            self.start_loss_episode(f, false);
        }
    }

    /// Linux tcp_rack_reo_timeout: RACK's timer found losses: recovery
    /// starts (if it has not) with one PRR step.
    pub(super) fn on_reordering_losses(&mut self, f: &mut Flight) {
        if self.episode.state != CaState::Recovery {
            self.enter_recovery(f, false);
            if !f.cc_owns_window {
                let step = Delivered { segments: 1, una_advanced_without_loss: false, for_halving: 1 };
                self.reduce_cwnd(f.w, f.cc, f.cfg, f.sb, step);
            }
        }
    }

    /// Linux tcp_time_to_recover, then tcp_enter_recovery or tcp_try_to_open
    /// (none while the RFC 4138 F-RTO runs). Without SACK a loss is more
    /// duplicate ACKs than the reordering degree.
    fn start_episode_or_keep_open(&mut self, f: &mut Flight) {
        let mut loss = if f.cfg.sack { f.sb.lost_out > 0 } else { f.sb.sacked_out >= f.sb.reordering };
        if !loss && self.early_retransmit_now(f) {
            f.sb.mark_head_lost();
            loss = true;
        }
        if loss {
            self.start_loss_episode(f, f.ece);
            return;
        }
        let state = self.episode.state;
        // RFC 3168 6.1.2: at most one reduction per window: an ECE that only
        // acknowledges data sent before the last reduction began is old news.
        if f.ece && state != CaState::Cwr && f.sb.una() > self.episode.high_seq {
            self.enter_cwr(f);
            return;
        }
        if state != CaState::Cwr {
            let disorder = f.sb.sacked_out > 0 || f.sb.lost_out > 0;
            let next = if disorder { CaState::Disorder } else { CaState::Open };
            if next != state {
                self.episode.set_state(f, next);
            }
        }
    }

    /// Linux tcp_try_undo_partial: a partial ACK echoes a timestamp older
    /// than the episode's first retransmission, so the delayed original, not
    /// the retransmission, filled the hole. The reordering degree grows to
    /// what the ACK reveals (the caller notes it, for this and for Linux
    /// 2.6's); while a retransmission is out nothing more is
    /// marked lost, and once none is the reduction is undone. Returns whether
    /// the ACK goes on to the loss check. As Linux 5.14+ ("net: tcp better
    /// handling of reordering then loss cases") it does after an undo: RACK
    /// judges the segments at once, or without SACK the undone episode keeps
    /// its duplicate ACKs and the head is judged against the new degree
    /// (tcp_newreno_mark_lost), so reordering followed by real losses starts
    /// a new recovery on this ACK (tcp_time_to_recover). SACK flows without
    /// RACK (DupThresh, kernels before 4.18) stop there, as those kernels did;
    /// their marking ran before the state machine and is undone by the undo.
    fn undo_partial(&mut self, f: &mut Flight) -> bool {
        if f.sb.retrans_out > 0 {
            return false;
        }
        self.undo_reduction(f);
        !f.cfg.sack || f.uses_rack()
    }

    /// Linux tcp_may_undo (undo.rs): D-SACKs or the timestamp echo
    /// `ack_tsecr` prove the episode's retransmissions needless.
    fn may_undo(&self, cfg: &SenderConfig, ack_tsecr: Nanos) -> bool {
        self.episode.undo.may_undo(ack_tsecr, undoes_as_2_6(cfg))
    }

    /// Linux tcp_try_undo_recovery after a spurious fast recovery: restore
    /// the window, note the reordering that fooled the sender, and return to Open.
    fn undo_recovery(&mut self, f: &mut Flight, prior_una: u64) {
        f.sb.note_reordering(prior_una);
        self.undo_reduction(f);
    }

    /// An undone recovery: the state is Open (Disorder once the ACK's loss
    /// check sees segments out of order). Without SACK the duplicate ACKs
    /// counted so far stay: they still stand for segments the receiver holds
    /// (tcp_undo_cwnd_reduction leaves sacked_out alone).
    fn undo_reduction(&mut self, f: &mut Flight) {
        f.stats.undone_recoveries += 1;
        self.undo_cwnd_reduction(f);
        self.episode.set_state(f, CaState::Open);
    }

    /// Linux tcp_undo_cwnd_reduction: nothing is lost after all, and the
    /// window and ssthresh of before the episode come back if the episode
    /// made the reduction (prior_ssthresh is 0 after an ECN echo, and in a
    /// recovery that took over a CWR's reduction).
    fn undo_cwnd_reduction(&mut self, f: &mut Flight) {
        unmark_lost(f);
        let ep = &mut self.episode;
        if ep.prior_ssthresh > 0 {
            f.w.cwnd = f.cc.undo_cwnd(f.w, ep.prior_cwnd);
            if ep.prior_ssthresh > f.w.ssthresh {
                f.w.ssthresh = ep.prior_ssthresh;
                self.cwr_pending = false; // Linux tcp_ecn_withdraw_cwr
            }
        } else if undoes_as_2_6(f.cfg) && f.w.ssthresh < INFINITE_SSTHRESH {
            f.w.cwnd = f.w.cwnd.max(f.w.ssthresh); // 2.6 tcp_undo_cwr without prior_ssthresh
        }
        if undoes_as_2_6(f.cfg) {
            undo26::moderate_cwnd(f.w, f.sb);
        }
        ep.undo.possible = false;
    }

    /// Linux tcp_init_cwnd_reduction: the start of Recovery or CWR.
    fn init_cwnd_reduction(&mut self, f: &mut Flight) {
        let ep = &mut self.episode;
        ep.high_seq = f.sb.nxt();
        f.loss.tlp.end_episode();
        ep.prior_cwnd = f.w.cwnd;
        ep.prr.start(f.w.cwnd);
        let c = f.conn(ep.state);
        f.w.ssthresh = f.cc.ssthresh(f.w, &c);
        self.queue_cwr(f.cfg);
    }

    /// Linux tcp_ecn_queue_cwr: every window reduction tells the receiver
    /// (CWR on the next new data), whatever caused it.
    fn queue_cwr(&mut self, cfg: &SenderConfig) {
        if cfg.ecn {
            self.cwr_pending = true;
        }
    }

    /// A loss episode starts: fast recovery, or slow start for the
    /// algorithms that recover that way. `ece_ack`: the ACK that found the
    /// loss echoed congestion.
    fn start_loss_episode(&mut self, f: &mut Flight, ece_ack: bool) {
        if self.policy == RecoveryPolicy::SlowStart {
            self.enter_loss(f);
            f.stats.fast_recoveries += 1;
        } else {
            self.enter_recovery(f, ece_ack);
        }
    }

    /// Linux tcp_enter_recovery; an undo restores the window only if this
    /// episode made the reduction and no ECN echo (`ece_ack`) asked for it.
    fn enter_recovery(&mut self, f: &mut Flight, ece_ack: bool) {
        f.stats.fast_recoveries += 1;
        if !f.cfg.sack {
            f.sb.mark_head_lost();
        }
        // What an undo restores (Linux tcp_enter_recovery: prior_ssthresh,
        // undo_marker; retrans_stamp restarts once nothing is retransmitted).
        let ep = &mut self.episode;
        ep.prior_ssthresh = 0;
        ep.undo.start(f.sb.una(), f.sb.retrans_out);
        ep.undo.restart_stamp_unless_retransmitting(f.sb.retrans_out);
        // A reduction under way (CWR after an ECN echo) goes on: its
        // ssthresh, recovery point and PRR counts stay (tcp_in_cwnd_reduction).
        // From Loss (a lost retransmission) a new one starts.
        if ep.state != CaState::Cwr {
            if !ece_ack {
                ep.prior_ssthresh = f.w.current_ssthresh();
            }
            self.init_cwnd_reduction(f);
        }
        self.episode.set_state(f, CaState::Recovery);
    }

    /// Linux tcp_try_undo_loss: a spurious timeout (Eifel, D-SACK, or F-RTO
    /// when `by_frto`): the window and ssthresh come back, the segments
    /// marked lost are not retransmitted. With SACK (or F-RTO) the state is
    /// Open at once; without, Loss lasts until its recovery point is ACKed.
    fn undo_loss(&mut self, f: &mut Flight, by_frto: bool) {
        f.stats.undone_timeouts += 1;
        self.undo_cwnd_reduction(f);
        self.episode.timeouts_in_a_row = 0;
        self.frto.active = false;
        if by_frto || f.cfg.sack {
            if !f.cfg.sack {
                f.sb.reset_reno_sacks();
            }
            self.episode.set_state(f, CaState::Open);
        }
    }

    fn enter_cwr(&mut self, f: &mut Flight) {
        f.stats.ecn_reductions += 1;
        self.reduce_as_cwr(f);
    }

    /// Linux tcp_enter_cwr: a reduction with no loss to repair, once per
    /// window (only from Open or Disorder).
    fn reduce_as_cwr(&mut self, f: &mut Flight) {
        self.episode.undo.possible = false;
        self.init_cwnd_reduction(f);
        self.episode.set_state(f, CaState::Cwr);
    }

    /// The sending host's queue refused a segment (net/host_queue.rs): the
    /// window is reduced as for ECN (Linux tcp_transmit_skb calls
    /// tcp_enter_cwr when the device drops, 2.6 to today), unless a
    /// reduction is already under way.
    pub(super) fn on_local_drop(&mut self, f: &mut Flight) {
        if matches!(self.episode.state, CaState::Open | CaState::Disorder) {
            self.reduce_as_cwr(f);
        }
    }

    /// One step of the reduction under way (Recovery, CWR) on an ACK that
    /// delivered `ack`: PRR (prr.rs), or rate halving without it. Told its
    /// parts, not a `Flight`: this runs on every ACK of a reduction.
    #[inline(always)]
    pub(super) fn reduce_cwnd(
        &mut self,
        w: &mut Window,
        cc: &Algorithm,
        cfg: &SenderConfig,
        sb: &Scoreboard,
        ack: Delivered,
    ) {
        let in_flight = sb.in_flight();
        if cfg.prr {
            self.episode.prr.reduce(w, in_flight, ack.segments, ack.una_advanced_without_loss);
        } else {
            self.episode.prr.rate_halve(w, in_flight, ack.for_halving, |w| cc.min_cwnd(w));
        }
    }

    /// Linux tcp_enter_loss: after an RTO (or Tahoe's fast retransmit).
    fn enter_loss(&mut self, f: &mut Flight) {
        let ep = &mut self.episode;
        let (una, high_seq, timeouts) = (f.sb.una(), ep.high_seq, ep.timeouts_in_a_row);
        // RFC 5682 F-RTO runs unless an earlier recovery is underway, except
        // for repeated timeouts of one segment (Linux tcp_enter_loss, 3.10+).
        self.frto.active = f.cfg.frto == FrtoVariant::Rfc5682
            && self.policy != RecoveryPolicy::SlowStart
            && (ep.state < CaState::Recovery || timeouts > 0);
        if crate::cc::timeout_starts_episode(ep.state, una, high_seq, timeouts) {
            ep.prior_cwnd = f.w.cwnd;
            ep.prior_ssthresh = f.w.current_ssthresh();
            ep.undo.restart_stamp_unless_retransmitting(f.sb.retrans_out);
            ep.undo.start(f.sb.una(), f.sb.retrans_out);
            let c = f.conn(ep.state);
            crate::cc::reduce_on_timeout(f.cc, f.w, &c);
        }
        f.w.cwnd = 1;
        f.w.cwnd_cnt = 0;
        // Linux tcp_enter_loss: no undo once a segment still outstanding was
        // retransmitted before (its ACK cannot tell which copy arrived).
        if f.sb.any_ever_retransmitted() {
            ep.undo.possible = false;
        }
        f.sb.mark_all_lost();
        if !f.cfg.sack {
            f.sb.reset_reno_sacks();
        }
        ep.high_seq = f.sb.nxt();
        f.loss.tlp.end_episode();
        self.queue_cwr(f.cfg);
        self.episode.set_state(f, CaState::Loss);
        *f.next_send_at = f.now;
    }

    /// The retransmission timer fired with segments out: F-RTO (RFC 4138)
    /// or the conventional loss recovery. Returns the segment to
    /// retransmit at once when F-RTO took the timeout (the head; the caller
    /// sends it, then backs the timer off).
    pub(super) fn on_retransmission_timeout(&mut self, f: &mut Flight) -> Option<u64> {
        f.stats.timeouts += 1;
        if self.episode.state <= CaState::Disorder {
            f.sb.on_timeout_without_recovery();
        }
        let head = f.sb.una();
        let frto = self.frto.takes_timeout(&mut self.episode, f, self.policy);
        if !frto {
            self.enter_loss(f);
        }
        self.episode.timeouts_in_a_row += 1;
        frto.then_some(head)
    }
}

/// An undo: no segment is lost after all. RACK watches them again at
/// their last send times (Linux keeps every skb in tsorted_sent_queue;
/// ccbench's RACK drops the lost ones from its list).
fn unmark_lost(f: &mut Flight) {
    f.sb.unmark_lost();
    if f.cfg.rack {
        f.loss.rack.resync(f.sb);
    }
}

/// The undo of Linux 2.6 (undo26.rs) rather than today's.
fn undoes_as_2_6(cfg: &SenderConfig) -> bool {
    cfg.undo == UndoStyle::Linux26
}

#[cfg(test)]
mod tests {
    use crate::cc::CaState;
    use crate::tcp::driver::Driver;

    /// 20 segments out, segment 0 lost: SACKs of 1..=k arrive one per ACK.
    fn lose_the_first_of_twenty() -> Driver {
        twenty_out("reno")
    }

    /// A `cc` sender with its initial window of 20 segments out.
    fn twenty_out(cc: &str) -> Driver {
        let mut d = Driver::new(cc, 20);
        assert_eq!(d.start().len(), 20);
        d
    }

    #[test]
    fn prr_sends_one_segment_per_two_delivered_while_the_pipe_is_above_ssthresh() {
        let mut d = lose_the_first_of_twenty();
        let mut sent_in_recovery = 0;
        for k in 1..=8u64 {
            let sent = d.ack(1, 0, &[(1, k + 1)]);
            if k < 3 {
                // Disorder: each SACKed segment left the network, one new one goes.
                assert_eq!(sent, [19 + k], "k {k}");
                continue;
            }
            assert_eq!(d.s.ca_state(), CaState::Recovery);
            assert_eq!(d.s.w.ssthresh, 10);
            if k == 3 {
                assert_eq!(sent, [0], "the fast retransmit goes first");
            }
            sent_in_recovery += sent.len() as u64;
            // RFC 6937: ceil(ssthresh * prr_delivered / prior_cwnd), prr_delivered = k - 2.
            assert_eq!(sent_in_recovery, (10 * (k - 2)).div_ceil(20), "k {k}");
        }
    }

    #[test]
    fn rate_halving_without_prr_sends_one_per_two_delivered_and_ends_without_a_burst() {
        // Linux before 3.2 (tcp_cwnd_down): the window is not cut to ssthresh
        // at once; it falls by one per two ACKs and never exceeds the flight + 1.
        let mut d = lose_the_first_of_twenty();
        d.s.cfg.prr = false;
        let mut sent_in_recovery = 0;
        for k in 1..=19u64 {
            let sent = d.ack(1, 0, &[(1, k + 1)]);
            if k == 3 {
                assert!(d.s.w.cwnd > d.s.w.ssthresh, "cut at once: cwnd {}", d.s.w.cwnd);
            }
            if k >= 3 {
                assert_eq!(d.s.ca_state(), CaState::Recovery);
                assert!(d.s.w.cwnd <= d.s.sb.in_flight() + 1, "k {k}: cwnd {}", d.s.w.cwnd);
                sent_in_recovery += sent.len() as u64;
            }
        }
        // 17 ACKs in recovery: the retransmission and about one new segment per two ACKs.
        assert!((8..=10).contains(&sent_in_recovery), "sent {sent_in_recovery}");
        let high = d.s.snd_nxt();
        let in_flight_before = d.s.sb.in_flight();
        let sent = d.ack(50, high, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
        // The window comes down to ssthresh at most, never up to it from a drained flight.
        assert!(
            d.s.w.cwnd <= 11 && sent.len() as u32 <= in_flight_before + 2,
            "cwnd {} sent {}",
            d.s.w.cwnd,
            sent.len()
        );
    }

    #[test]
    fn rate_halving_stops_at_the_algorithms_min_cwnd() {
        // Linux 2.6 tcp_cwnd_down lowers the window only while it is above
        // tcp_cwnd_min(), the module's min_cwnd: Westwood+'s is BWE * RTTmin
        // (tcp_westwood_bw_rttmin), not ssthresh.
        // One segment per 5 ms with 20 out: RTT 100 ms, BWE * RTTmin about
        // 20 segments once the filter has converged.
        let mut d = without_prr_at_twenty_out("westwood+", 800);
        let floor = d.s.cc.min_cwnd(&d.s.w);
        assert!((17..=20).contains(&floor), "BWE * RTTmin {floor}");
        // Segment 800 is lost; the 19 after it are SACKed one per ACK.
        for k in 1..=19u64 {
            d.ack(5, 800, &[(801, 801 + k)]);
        }
        assert_eq!((d.s.ca_state(), d.s.w.ssthresh), (CaState::Recovery, 10));
        // It holds at BWE * RTTmin (18 by now); ssthresh's floor would have
        // taken it to 11.
        let floor = d.s.cc.min_cwnd(&d.s.w);
        assert!(d.s.w.cwnd >= floor.max(17), "cwnd {} fell below BWE * RTTmin {floor}", d.s.w.cwnd);
    }

    /// A sender without PRR, its window clamped at 20, whose segments up to
    /// `acked` were ACKed one per 5 ms.
    fn without_prr_at_twenty_out(cc: &str, acked: u64) -> Driver {
        let mut d = Driver::new(cc, 20);
        d.s.cfg.prr = false;
        d.s.w.cwnd_clamp = 20;
        d.start();
        d.ack(100, 1, &[]);
        for cum in 2..=acked {
            d.ack(5, cum, &[]);
        }
        d
    }

    /// The window of a sender without PRR after `sacked` SACKs of the
    /// segments above a lost one, at 20 segments out (those SACKs cover only
    /// segments sent).
    fn rate_halving_after_sacks(cc: &str, sacked: u64) -> (u32, u32) {
        let mut d = without_prr_at_twenty_out(cc, 200);
        // Segment 200 is lost; those after it are SACKed one per ACK.
        for k in 1..=sacked {
            d.ack(5, 200, &[(201, 201 + k)]);
        }
        assert_eq!(d.s.ca_state(), CaState::Recovery, "{cc}");
        (d.s.w.cwnd, d.s.w.ssthresh)
    }

    #[test]
    fn rate_halving_takes_reno_below_ssthresh_down_to_half_of_it() {
        // Linux 2.6 tcp_cwnd_down stops at tcp_cwnd_min(): reno's min_cwnd,
        // tcp_reno_min_cwnd, is ssthresh / 2 (a floor of ssthresh held 10).
        let (cwnd, ssthresh) = rate_halving_after_sacks("reno", 29);
        assert_eq!((cwnd, ssthresh), (6, 10));
        let (cwnd, ssthresh) = rate_halving_after_sacks("reno", 30);
        assert_eq!((cwnd, ssthresh), (5, 10));
    }

    #[test]
    fn recovery_ends_at_ssthresh_when_the_retransmission_is_acked() {
        let mut d = lose_the_first_of_twenty();
        for k in 1..=19u64 {
            d.ack(1, 0, &[(1, k + 1)]);
        }
        let high = d.s.snd_nxt();
        d.ack(50, high, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!(d.s.w.ssthresh, 10);
        // cwnd = ssthresh, then this ACK's congestion avoidance may add one.
        assert!((10..=11).contains(&d.s.w.cwnd), "cwnd {}", d.s.w.cwnd);
        assert_eq!(d.s.stats.undone_recoveries, 0);
    }

    #[test]
    fn a_recovery_the_timestamps_show_spurious_is_undone() {
        let mut d = lose_the_first_of_twenty();
        for k in 1..=3u64 {
            d.ack(100, 0, &[(1, k + 1)]);
        }
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        // Segment 0 was only late: the ACK that covers it echoes its original
        // timestamp, older than the retransmission.
        d.ack_echo(1, 20, &[], 1);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        // ssthresh is back to what it was (infinite: still in slow start), so
        // the window before the reduction grows by what this ACK delivered.
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH);
        assert!(d.s.w.cwnd > 20, "cwnd {}", d.s.w.cwnd);
    }

    #[test]
    fn a_recovery_whose_retransmission_filled_the_hole_is_not_undone() {
        let mut d = lose_the_first_of_twenty();
        for k in 1..=3u64 {
            d.ack(100, 0, &[(1, k + 1)]);
        }
        let retransmitted_at = d.now;
        d.ack_echo(1, 20, &[], retransmitted_at);
        assert_eq!(d.s.stats.undone_recoveries, 0);
        assert_eq!(d.s.w.ssthresh, 10);
    }

    /// Without SACK: 20 segments of `cc` out, segment 0 missing (lost or
    /// only delayed), its fast retransmission sent on the third duplicate
    /// ACK; then `dupacks` more duplicate ACKs.
    fn recovery_without_sack(cc: &str, dupacks: u64) -> Driver {
        let mut d = twenty_out(cc);
        d.s.cfg.sack = false;
        for _ in 0..3 {
            d.ack(1, 0, &[]);
        }
        assert_eq!((d.s.ca_state(), d.s.sb.retrans_out), (CaState::Recovery, 1));
        for _ in 0..dupacks {
            d.ack(1, 0, &[]);
        }
        d
    }

    /// Reno's recovery on segment 0 only delayed; the duplicate ACKs are for
    /// segment 4, and 6.. above a real loss of segment 5.
    fn reno_recovery_on_a_delayed_head(dupacks: u64) -> Driver {
        recovery_without_sack("reno", dupacks)
    }

    #[test]
    fn without_sack_a_partial_undo_with_a_loss_behind_it_recovers_again_on_that_ack() {
        // Linux 5.14+ tcp_fastretrans_alert: after tcp_try_undo_partial the
        // duplicate ACKs left (14 - 4 covered) are judged against the degree
        // the ACK revealed (5 segments ACKed: fack is snd_una for a flow
        // without SACK), so the next hole is retransmitted at once under a
        // new reduction, not left to the retransmission timer.
        let mut d = reno_recovery_on_a_delayed_head(11);
        assert_eq!(d.s.sb.sacked_out, 14);
        // The original segment 0 arrives: the ACK echoes its timestamp.
        let sent = d.ack_echo(1, 5, &[], 1);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        assert_eq!(d.s.sb.reordering, 5, "the segments ACKed, not sacked_out + 1 + ACKed (16)");
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!((d.s.stats.fast_recoveries, d.s.w.ssthresh), (2, 10));
        assert_eq!(sent.first(), Some(&5), "the hole behind goes now");
    }

    #[test]
    fn without_sack_the_duplicate_acks_outlive_a_partial_undo() {
        // tcp_undo_cwnd_reduction leaves sacked_out alone: 4 duplicate ACKs
        // stay counted after the undo (Disorder), and one more reaches the
        // new degree of 5.
        let mut d = reno_recovery_on_a_delayed_head(5);
        d.ack_echo(1, 5, &[], 1);
        assert_eq!((d.s.ca_state(), d.s.sb.sacked_out, d.s.sb.reordering), (CaState::Disorder, 4, 5));
        let sent = d.ack(1, 5, &[]);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!(sent.first(), Some(&5));
    }

    #[test]
    fn without_sack_a_duplicate_ack_delivers_only_what_grows_the_count() {
        // Linux tcp_add_reno_sack counts a duplicate ACK as delivered only as
        // far as sacked_out grows (6.x: tcp_count_delivered of the growth;
        // 3.x: PRR's newly_acked_sacked, the change of packets_out -
        // sacked_out), and tcp_limit_reno_sacked keeps sacked_out below the
        // segments out beside the hole. 20 out, none can be added (receive
        // window), the head lost: 19 duplicate ACKs can stand for segments
        // that left the network, the 20th to 22nd (duplicated ACKs) cannot.
        let mut d = lose_the_first_of_twenty();
        d.s.cfg.sack = false;
        d.rwnd = 20;
        for _ in 0..22 {
            d.ack(1, 0, &[]);
        }
        assert_eq!((d.s.ca_state(), d.s.sb.packets_out(), d.s.sb.sacked_out), (CaState::Recovery, 20, 19));
        assert_eq!(d.s.conn(d.now).delivered, 19);
    }

    #[test]
    fn without_sack_only_duplicate_acks_in_a_row_count_towards_recovery() {
        // Segments 0 and 1 are delayed: two duplicate ACKs, then segment 0
        // arrives and the ACK of new data still leaves 1 missing. Linux
        // (tcp_fastretrans_alert, Disorder) forgets the two, so the next
        // duplicate ACK is the first again, not the third.
        let mut d = lose_the_first_of_twenty();
        d.s.cfg.sack = false;
        d.ack(1, 0, &[]);
        d.ack(1, 0, &[]);
        d.ack(1, 1, &[]);
        d.ack(1, 1, &[]);
        assert_eq!((d.s.ca_state(), d.s.sb.sacked_out), (CaState::Disorder, 1));
        assert_eq!(d.s.stats.fast_recoveries, 0);
    }

    #[test]
    fn without_sack_the_ack_ending_a_recovery_grows_the_window_by_what_no_duplicate_ack_counted() {
        // Linux tcp_remove_reno_sacks: the duplicate ACKs each counted a
        // delivery already, so the ACK that fills the hole delivers max(ACKed
        // - duplicate ACKs, 1) segments, and congestion avoidance after the
        // recovery grows by that (tcp_cong_avoid_ai), not by all 20 ACKed.
        // Segment 0 lost: a duplicate ACK for each of the others, those
        // sent on the first two (limited transmit) included.
        let mut d = recovery_without_sack("newreno", 0);
        let recovery_point = d.s.recovery.episode.high_seq;
        for _ in 3..recovery_point - 1 {
            d.ack(1, 0, &[]);
        }
        d.ack_echo(1, recovery_point, &[], d.s.recovery.episode.undo.retrans_stamp);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!((d.s.w.cwnd, d.s.w.ssthresh), (10, 10));
    }

    #[test]
    fn without_sack_a_partial_ack_that_marks_the_next_hole_earns_no_extra_segment() {
        // Linux 6.x: the partial ACK's NewReno head mark (tcp_newreno_mark_lost)
        // grows tp->lost, so tcp_cwnd_reduction's slow-start bound gives no
        // extra segment for that ACK: sndcnt = min(delta, max(prr_delivered -
        // prr_out, newly delivered)), without the +1 of an ACK that lost nothing.
        // Segments 0 and 5 lost: duplicate ACKs for 1..4 and 6..19.
        let mut d = recovery_without_sack("newreno", 15);
        // The pipe well below ssthresh, PRR's sending ahead of its deliveries
        // (earlier slow-start bounds): the bound is the ACK's own deliveries.
        d.s.w.ssthresh = 30;
        d.s.recovery.episode.prr.send_ahead(10);
        // The retransmission of 0 arrives: the partial ACK covers 0..4 and
        // marks 5, the next hole, lost. It delivered one segment: the
        // duplicate ACKs counted 1..4 (tcp_remove_reno_sacks).
        let sent = d.ack_echo(1, 5, &[], d.s.recovery.episode.undo.retrans_stamp);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!(sent, [5], "the next hole, and no extra segment");
    }

    /// A modern sender (RACK) without loss probes or F-RTO, so the first
    /// timer is the retransmission timer and Loss retransmits at once.
    fn rack_sender(init_cwnd: u32) -> Driver {
        let mut d = Driver::modern("reno", init_cwnd);
        d.s.cfg.tlp = false;
        d.s.cfg.frto = crate::tcp::frto::FrtoVariant::Off;
        d
    }

    #[test]
    fn with_rack_a_partial_undo_marks_the_loss_behind_on_the_same_ack() {
        // Linux 5.14+ tcp_fastretrans_alert: once the partial undo leaves no
        // retransmission out, RACK judges in the undone state and a loss
        // behind the reordering starts a new recovery on this ACK.
        let mut d = rack_sender(20);
        assert_eq!(d.start().len(), 20);
        // Segment 0 is only late: SACKs of 1..4 start a recovery.
        let sent = d.ack(100, 0, &[(1, 4)]);
        assert_eq!((d.s.ca_state(), sent.first()), (CaState::Recovery, Some(&0)));
        let newest = *sent.last().unwrap();
        assert!(newest >= 20, "new data went out too: {sent:?}");
        // The original segment 0 arrives (its timestamp is echoed), segment 5
        // is lost, and everything up to the new data sent 150 ms ago is SACKed.
        let sent = d.ack_echo(150, 5, &[(6, newest + 1)], 1);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        assert_eq!((d.s.ca_state(), d.s.stats.fast_recoveries), (CaState::Recovery, 2));
        assert_eq!(sent.first(), Some(&5), "the hole behind goes now: {sent:?}");
    }

    #[test]
    fn with_rack_a_retransmission_lost_in_loss_starts_a_fast_recovery() {
        // Linux 6.x tcp_fastretrans_alert (Loss): a lost retransmission
        // (FLAG_LOST_RETRANS) falls through to tcp_time_to_recover, and
        // tcp_enter_recovery starts a new reduction from the Loss window.
        let mut d = rack_sender(10);
        d.start();
        assert_eq!(d.timeout(), [0]);
        assert_eq!((d.s.ca_state(), d.s.w.ssthresh), (CaState::Loss, 5));
        assert_eq!(d.ack(100, 1, &[]), [1, 2]);
        // The retransmission of 2 arrives, the one of 1, sent before it, does not.
        d.ack(120, 1, &[(2, 3)]);
        assert_eq!((d.s.ca_state(), d.s.stats.fast_recoveries), (CaState::Recovery, 1));
        assert_eq!(d.s.w.ssthresh, 2, "reno's half of the Loss window of 2 (at least 2)");
    }

    #[test]
    fn only_a_recovery_that_is_not_undone_narrows_racks_window_again() {
        // Linux tcp_try_undo_recovery decrements reo_wnd_persist in its
        // no-undo branch only: a D-SACK widened window outlives undone
        // recoveries, and 16 recoveries that end at their recovery point.
        let recovery = |undone: bool| {
            let mut d = rack_sender(20);
            d.start();
            d.s.loss.rack.on_dsack(0, 20);
            d.ack(100, 0, &[(1, 4)]);
            assert_eq!(d.s.ca_state(), CaState::Recovery);
            let high = d.s.snd_nxt();
            let echo = if undone { 1 } else { d.now };
            d.ack_echo(50, high, &[], echo);
            assert_eq!((d.s.ca_state(), d.s.stats.undone_recoveries), (CaState::Open, undone as u64));
            d.s.loss.rack.recoveries_until_narrow()
        };
        assert_eq!(recovery(true), 16);
        assert_eq!(recovery(false), 15);
    }

    #[test]
    fn an_ecn_echo_during_a_recovery_keeps_its_undo_from_restoring_the_window() {
        // Linux tcp_fastretrans_alert step A: an ECE clears prior_ssthresh,
        // so tcp_undo_cwnd_reduction leaves the reduction in place.
        let mut d = rack_sender(20);
        d.s.cfg.ecn = true;
        d.start();
        d.ack(100, 0, &[(1, 4)]);
        assert_eq!((d.s.ca_state(), d.s.w.ssthresh), (CaState::Recovery, 10));
        d.ece = true;
        d.ack(10, 0, &[(1, 5)]);
        d.ece = false;
        let high = d.s.snd_nxt();
        d.ack_echo(10, high, &[], 1);
        assert_eq!((d.s.ca_state(), d.s.stats.undone_recoveries), (CaState::Open, 1));
        assert_eq!(d.s.w.ssthresh, 10);
    }

    #[test]
    fn the_ack_of_an_original_does_not_time_rack_by_its_retransmission() {
        // Linux tcp_clean_rtx_queue skips tcp_rack_advance for a
        // retransmitted segment whose ACK echoes an older timestamp
        // (tcp_skb_spurious_retrans): after a spurious timeout the segments
        // sent with the original are not overdue against the retransmission.
        let mut d = rack_sender(10);
        d.start();
        assert_eq!(d.timeout(), [0]);
        // The original segment 0 arrives after the timeout (its timestamp, 1, is echoed).
        let sent = d.ack_echo(100, 1, &[], 1);
        assert_eq!((d.s.ca_state(), d.s.stats.undone_timeouts), (CaState::Open, 1));
        assert_eq!(d.s.sb.lost_out, 0, "segments 1.. are not lost");
        assert!(sent.iter().all(|&seq| seq >= 10), "new data only: {sent:?}");
    }

    /// 20 segments out with ECN, then an ACK of 2 echoing congestion: CWR.
    fn in_cwr() -> Driver {
        let mut d = rack_sender(20);
        d.s.cfg.ecn = true;
        d.start();
        d.ece = true;
        d.ack(100, 2, &[]);
        assert_eq!((d.s.ca_state(), d.s.w.ssthresh, d.s.recovery.episode.high_seq), (CaState::Cwr, 10, 20));
        d.ece = false;
        d
    }

    #[test]
    fn an_ecn_reduction_lasts_until_data_above_its_recovery_point_is_acked() {
        // Linux tcp_fastretrans_alert (CWR): held until snd_una passes
        // high_seq, so the segment carrying the CWR flag was received.
        let mut d = in_cwr();
        let high_seq = d.s.recovery.episode.high_seq;
        d.ack(10, high_seq, &[]);
        assert_eq!(d.s.ca_state(), CaState::Cwr);
        d.ack(10, high_seq + 1, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
    }

    #[test]
    fn a_loss_during_an_ecn_reduction_keeps_that_reduction() {
        // Linux tcp_enter_recovery: in CWR (tcp_in_cwnd_reduction) the
        // recovery takes over the reduction under way, its ssthresh and
        // recovery point, instead of halving the reduced window again.
        let mut d = in_cwr();
        let high_seq = d.s.recovery.episode.high_seq;
        assert!(d.s.w.cwnd < 20, "PRR brings the window down: {}", d.s.w.cwnd);
        d.ack(10, 2, &[(3, 6)]);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!((d.s.w.ssthresh, d.s.recovery.episode.high_seq), (10, high_seq));
        // Segment 2 was only late: the undo ends the recovery, but the
        // reduction the ECN echo asked for stays (prior_ssthresh 0).
        let cwnd = d.s.w.cwnd;
        d.ack_echo(10, high_seq, &[], 1);
        assert_eq!((d.s.ca_state(), d.s.stats.undone_recoveries), (CaState::Open, 1));
        assert_eq!(d.s.w.ssthresh, 10);
        assert!(d.s.w.cwnd <= cwnd.max(10) + 1, "cwnd {} restored from {cwnd}", d.s.w.cwnd);
    }

    #[test]
    fn with_ecn_retransmissions_go_without_ect_and_a_loss_recovery_sends_cwr() {
        // RFC 3168 6.1.5 and Linux tcp_ecn_send: ECT only on new data;
        // Linux tcp_init_cwnd_reduction queues CWR for a loss's reduction too.
        let mut d = rack_sender(20);
        d.s.cfg.ecn = true;
        d.start();
        assert!(d.sent.iter().all(|p| p.ect && !p.cwr));
        d.ack(100, 0, &[(1, 4)]);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        let retransmission = d.sent.iter().find(|p| p.seq == 0).expect("segment 0 again");
        assert!(!retransmission.ect && !retransmission.cwr);
        // The first new data after the reduction carries CWR, once.
        let mut cwr: Vec<_> = d.sent.iter().filter(|p| p.seq >= 20).map(|p| (p.seq, p.ect, p.cwr)).collect();
        for k in 5..20 {
            d.ack(1, 0, &[(1, k)]);
            cwr.extend(d.sent.iter().filter(|p| p.seq >= 20).map(|p| (p.seq, p.ect, p.cwr)));
        }
        assert_eq!(cwr.iter().filter(|c| c.2).count(), 1, "{cwr:?}");
        assert!(cwr[0].2 && cwr.iter().all(|c| c.1), "{cwr:?}");
    }

    #[test]
    fn an_undo_withdraws_a_cwr_not_yet_sent() {
        // Linux tcp_undo_cwnd_reduction: ssthresh restored, tcp_ecn_withdraw_cwr.
        let mut d = rack_sender(20);
        d.s.cfg.ecn = true;
        d.rwnd = 20; // no new data until the window opens
        d.start();
        d.ack(100, 0, &[(1, 4)]);
        assert!(d.s.recovery.cwr_pending, "a reduction queues CWR");
        // Segment 0 was only late (its original timestamp is echoed): undone.
        d.ack_echo(50, 20, &[], 1);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        assert!(d.sent.iter().any(|p| p.seq >= 20), "new data once the window opens");
        assert!(!d.s.recovery.cwr_pending && d.sent.iter().all(|p| !p.cwr), "undone: no CWR");
    }

    #[test]
    fn dctcp_retransmissions_stay_ecn_capable() {
        // Linux tcp_ecn_send keeps ECT on retransmissions when the algorithm
        // needs ECN (tcp_ca_needs_ecn).
        let mut d = Driver::modern("dctcp", 20);
        d.s.cfg.ecn = true;
        d.start();
        d.ack(100, 0, &[(1, 4)]);
        let retransmission = d.sent.iter().find(|p| p.seq == 0).expect("segment 0 again");
        assert!(retransmission.ect);
    }

    #[test]
    fn a_timeout_halves_ssthresh_and_restarts_from_one_segment() {
        let mut d = lose_the_first_of_twenty();
        let sent = d.timeout();
        assert_eq!(d.s.ca_state(), CaState::Loss);
        assert_eq!((d.s.w.cwnd, d.s.w.ssthresh), (1, 10));
        assert_eq!(sent, [0], "the head goes again");
        // The retransmission is lost too: the second timeout keeps ssthresh
        // (it would be 2 if recomputed from cwnd 1).
        d.timeout();
        assert_eq!((d.s.w.cwnd, d.s.w.ssthresh), (1, 10));
        assert_eq!(d.s.stats.timeouts, 2);
    }

    #[test]
    fn a_timeout_after_the_loss_episode_ended_starts_a_new_one() {
        let mut d = lose_the_first_of_twenty();
        d.timeout();
        let high = d.s.snd_nxt();
        // Everything outstanding at the timeout is ACKed: back to Open.
        d.ack(50, 20.max(high), &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
        while d.s.w.cwnd < 8 {
            let nxt = d.s.snd_nxt();
            d.ack(50, nxt, &[]);
        }
        let cwnd = d.s.w.cwnd;
        d.timeout();
        assert_eq!(d.s.w.ssthresh, (cwnd / 2).max(2));
    }

    #[test]
    fn a_timeout_after_an_ack_of_new_data_reduces_again_even_in_loss() {
        // Linux counts the timeouts since the last ACK that advanced snd_una
        // (icsk_retransmits), not since the last RTT sample: without
        // timestamps the ACK of a retransmission gives no sample (Karn), yet
        // a timeout after it starts a new reduction.
        let mut d = Driver::with_timestamps("reno", 20, false);
        d.start();
        d.timeout();
        assert_eq!(d.s.w.ssthresh, 10);
        d.ack(100, 1, &[]);
        assert_eq!(d.s.ca_state(), CaState::Loss, "segments 1.. are still outstanding");
        assert_eq!(d.s.w.cwnd, 2);
        d.timeout();
        assert_eq!(d.s.w.ssthresh, 2, "half of the window at the second timeout");
    }

    #[test]
    fn back_to_back_timeouts_leave_the_next_fast_recovery_to_the_algorithm() {
        // westwood+: a timeout sets ssthresh from the bandwidth estimate, a
        // fast recovery aims at Reno's half. A second timeout before any ACK
        // must not leave the first one's reaction armed.
        let mut d = Driver::new("westwood+", 10);
        assert_eq!(d.start().len(), 10);
        d.timeout();
        d.timeout();
        assert_eq!(d.s.stats.timeouts, 2);
        let timed_out_at = d.now;
        d.ack_echo(100, 10, &[], timed_out_at);
        assert_eq!(d.s.ca_state(), CaState::Open);
        // A window of 40, then segment 10 is lost: the fast recovery halves.
        d.s.w.cwnd = 40;
        let mut out = Vec::new();
        d.s.send(d.now, &mut out);
        d.ack(100, 10, &[(11, 15)]);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!(d.s.w.ssthresh, 20);
    }
}

/// Recovery decisions with hand-worked values, without a sender: the test
/// holds the parts a step borrows and lends them (`Parts::flight`).
#[cfg(test)]
mod without_a_sender {
    use super::*;
    use crate::tcp::config::SenderConfig;
    use crate::tcp::loss_detection::LossDetection;
    use crate::tcp::rtt::RttEstimator;
    use crate::tcp::scoreboard::{Removed, Segment};
    use crate::tcp::stats::SenderStats;
    use crate::time::NS_PER_MS;
    use std::collections::BTreeMap;

    /// What a sender would lend: reno with the driver's configuration
    /// (SACK, PRR, no timestamps, no RACK), a window of `cwnd` and `out`
    /// segments sent at 1 ns.
    struct Parts {
        cfg: SenderConfig,
        w: Window,
        cc: Algorithm,
        sb: Scoreboard,
        loss: LossDetection,
        stats: SenderStats,
        rtt: RttEstimator,
        next_send_at: Nanos,
    }

    impl Parts {
        fn new(cwnd: u32, out: u64) -> Parts {
            let cfg = crate::tcp::driver::config(cwnd, false);
            let mut sb = Scoreboard::new();
            for _ in 0..out {
                sb.push_new(Segment { sent_at: 1, ..Segment::default() });
            }
            Parts {
                w: Window::new(cwnd),
                cc: crate::cc::build("reno", &BTreeMap::new(), cfg.mss).expect("reno"),
                rtt: RttEstimator::new(cfg.rto_style, cfg.initial_rto, cfg.min_rto, cfg.max_rto),
                cfg,
                sb,
                loss: LossDetection::default(),
                stats: SenderStats::default(),
                next_send_at: 0,
            }
        }

        fn flight(&mut self, now: Nanos) -> Flight<'_> {
            Flight {
                now,
                delivered: 0,
                delivered_ce: 0,
                cwnd_limited: true,
                max_packets_out: self.sb.packets_out(),
                rto_at: None,
                ece: false,
                cc_owns_window: false,
                may_send_new: true,
                cfg: &self.cfg,
                rtt: &self.rtt,
                w: &mut self.w,
                cc: &mut self.cc,
                sb: &mut self.sb,
                loss: &mut self.loss,
                stats: &mut self.stats,
                next_send_at: &mut self.next_send_at,
            }
        }

        /// The cumulative ACK reaches `seq` (the scoreboard step of the ACK).
        fn ack_to(&mut self, seq: u64) {
            let _ = self.sb.ack_to(seq, |_: Removed| {});
        }

        /// Segment `seq` goes again at `now`, as the send loop would send it.
        fn retransmit(&mut self, r: &mut Recovery, seq: u64, now: Nanos) {
            self.sb.on_retransmit(seq, now, Default::default());
            r.episode.undo.on_retransmit(now);
        }
    }

    fn sacked() -> AckFlags {
        AckFlags { data_sacked: true, ..AckFlags::default() }
    }

    fn acked(segments: u32) -> AckFlags {
        AckFlags { data_acked: true, cum_acked: segments, ..AckFlags::default() }
    }

    /// 20 out with a window of 20; segment 0 is lost, 1..=3 SACKed: RFC
    /// 6675 marks it lost and the ACK enters Recovery. Returns the parts
    /// and the recovery, with segment 0 retransmitted at 10 ms.
    fn in_recovery() -> (Parts, Recovery) {
        let mut p = Parts::new(20, 20);
        let mut r = Recovery::new(RecoveryPolicy::Reno);
        p.sb.sack(1, 4, |_, _| {});
        assert_eq!(p.sb.mark_lost_by_sack(), 1);
        r.fastretrans_alert(&mut p.flight(10 * NS_PER_MS), &sacked(), 0, 0);
        p.retransmit(&mut r, 0, 10 * NS_PER_MS);
        (p, r)
    }

    #[test]
    fn entering_recovery_takes_ssthresh_from_the_algorithm_and_the_recovery_point_from_snd_nxt() {
        let (p, r) = in_recovery();
        assert_eq!(r.state(), CaState::Recovery);
        // Reno: ssthresh = max(cwnd / 2, 2) = 10; cwnd comes down by PRR
        // on the ACKs that follow, not at once.
        assert_eq!((p.w.ssthresh, p.w.cwnd), (10, 20));
        assert_eq!(r.episode.high_seq, 20, "snd_nxt when recovery began");
        // What an undo would restore: cwnd 20 and the ssthresh of before
        // (max(ssthresh, 3/4 cwnd) with ssthresh still infinite).
        assert_eq!((r.episode.prior_cwnd, r.episode.prior_ssthresh), (20, INFINITE_SSTHRESH));
        assert!(r.episode.undo.possible);
        assert_eq!(p.stats.fast_recoveries, 1);
    }

    #[test]
    fn an_ack_of_the_recovery_point_ends_recovery_at_ssthresh() {
        for (prr, cwnd_before, cwnd_after) in [(true, 7, 10), (true, 12, 10), (false, 7, 7), (false, 12, 10)] {
            let (mut p, mut r) = in_recovery();
            p.cfg.prr = prr;
            p.w.cwnd = cwnd_before;
            // Everything up to the recovery point (20) is ACKed, echoing
            // nothing older than the retransmission: no undo.
            p.ack_to(20);
            r.fastretrans_alert(&mut p.flight(60 * NS_PER_MS), &acked(20), 0, 0);
            assert_eq!(r.state(), CaState::Open, "prr {prr}, cwnd {cwnd_before}");
            // PRR: cwnd = ssthresh; rate halving (before 3.2): only down to it.
            assert_eq!((p.w.cwnd, p.w.ssthresh), (cwnd_after, 10), "prr {prr}, cwnd {cwnd_before}");
            assert_eq!(p.stats.undone_recoveries, 0);
        }
    }

    #[test]
    fn an_ack_below_the_recovery_point_keeps_recovery() {
        let (mut p, mut r) = in_recovery();
        p.ack_to(19);
        r.fastretrans_alert(&mut p.flight(60 * NS_PER_MS), &acked(19), 0, 0);
        assert_eq!((r.state(), p.w.ssthresh), (CaState::Recovery, 10));
    }

    #[test]
    fn a_recovery_the_timestamps_show_spurious_is_undone_to_the_window_and_ssthresh_of_before() {
        let (mut p, mut r) = in_recovery();
        p.w.cwnd = 12; // PRR brought it down
                       // The ACK of everything echoes 1 ns, older than the retransmission
                       // (10 ms): the original of segment 0 filled the hole (Eifel).
        p.ack_to(20);
        r.fastretrans_alert(&mut p.flight(60 * NS_PER_MS), &acked(20), 0, 1);
        assert_eq!(r.state(), CaState::Open);
        // Reno's undo_cwnd: max(cwnd, prior_cwnd) = max(12, 20).
        assert_eq!((p.w.cwnd, p.w.ssthresh), (20, INFINITE_SSTHRESH));
        assert_eq!(p.stats.undone_recoveries, 1);
        assert!(!r.episode.undo.possible, "an episode is undone once");
    }

    #[test]
    fn a_timeout_enters_loss_with_a_window_of_one() {
        let mut p = Parts::new(10, 10);
        let mut r = Recovery::new(RecoveryPolicy::Reno);
        let at = 1000 * NS_PER_MS;
        assert_eq!(r.on_retransmission_timeout(&mut p.flight(at)), None, "no F-RTO: the send loop retransmits");
        assert_eq!(r.state(), CaState::Loss);
        // Reno: ssthresh = max(10 / 2, 2); everything outstanding is lost.
        assert_eq!((p.w.cwnd, p.w.ssthresh), (1, 5));
        assert_eq!((p.sb.lost_out, r.episode.high_seq), (10, 10));
        assert_eq!((r.episode.timeouts_in_a_row, p.stats.timeouts), (1, 1));
        assert_eq!(p.next_send_at, at, "the retransmission goes at once");
        // A second timeout before any ACK keeps the first one's ssthresh
        // (recomputed from cwnd 1 it would be 2).
        r.on_retransmission_timeout(&mut p.flight(3 * at));
        assert_eq!((p.w.cwnd, p.w.ssthresh), (1, 5));
        assert_eq!((r.episode.timeouts_in_a_row, p.stats.timeouts), (2, 2));
    }

    /// 10 out with a window of 10, F-RTO `frto`: the retransmission timer
    /// fires at 1 s. Returns what `on_retransmission_timeout` returned.
    fn timed_out(frto: FrtoVariant) -> (Parts, Recovery, Option<u64>) {
        let mut p = Parts::new(10, 10);
        p.cfg.frto = frto;
        let mut r = Recovery::new(RecoveryPolicy::Reno);
        let head = r.on_retransmission_timeout(&mut p.flight(1000 * NS_PER_MS));
        (p, r, head)
    }

    #[test]
    fn rfc5682_frto_undoes_a_spurious_timeout() {
        let (mut p, mut r, _) = timed_out(FrtoVariant::Rfc5682);
        assert!(r.frto.active);
        p.retransmit(&mut r, 0, 1000 * NS_PER_MS);
        // Step 2.b: the ACK of the retransmitted head sends new data first.
        p.ack_to(1);
        let head = AckFlags { retrans_acked: true, ..acked(1) };
        r.fastretrans_alert(&mut p.flight(1010 * NS_PER_MS), &head, 0, 0);
        assert_eq!((r.state(), r.frto.new_data_first), (CaState::Loss, true));
        // Segments 1 and 2, sent before the timeout and never
        // retransmitted, are ACKed: the timeout was spurious (step 3.b).
        p.ack_to(3);
        let originals = AckFlags { orig_acked_below_high_seq: true, ..acked(2) };
        r.fastretrans_alert(&mut p.flight(1020 * NS_PER_MS), &originals, 1, 0);
        assert_eq!(r.state(), CaState::Open);
        // The window of before (10, Reno's undo_cwnd: max(1, 10)) and its ssthresh.
        assert_eq!((p.w.cwnd, p.w.ssthresh), (10, INFINITE_SSTHRESH));
        assert_eq!((p.stats.spurious_timeouts, p.stats.undone_timeouts), (1, 1));
        assert_eq!((p.sb.lost_out, r.episode.timeouts_in_a_row), (0, 0), "nothing is lost after all");
        assert!(!r.frto.active);
    }

    #[test]
    fn rfc4138_frto_takes_the_timeout_with_the_head_only() {
        let (p, r, head) = timed_out(FrtoVariant::Rfc4138);
        assert_eq!(head, Some(0), "the caller retransmits the head");
        // ssthresh reduced at once (Reno: 5), the state Disorder, nothing marked lost.
        assert_eq!((r.state(), p.w.ssthresh, p.sb.lost_out), (CaState::Disorder, 5, 0));
        assert_eq!((r.frto.counter, r.frto.highmark, r.episode.high_seq), (1, 10, 10));
    }

    #[test]
    fn rfc4138_frto_answers_a_spurious_timeout_with_a_reduction_not_a_restart() {
        let (mut p, mut r, _) = timed_out(FrtoVariant::Rfc4138);
        p.retransmit(&mut r, 0, 1000 * NS_PER_MS);
        // The first ACK of new data (0 and 1): two new segments may go,
        // cwnd = in flight (8) + 2 (RFC 4138 step 2.b).
        p.ack_to(2);
        let first = AckFlags { retrans_acked: true, ..acked(2) };
        assert!(r.process_frto(&mut p.flight(1010 * NS_PER_MS), &first), "the window does not grow");
        assert_eq!((r.frto.counter, p.w.cwnd), (2, 10));
        // The second ACKs originals never retransmitted: spurious. The
        // response is the reduction to the ssthresh the timeout set (5),
        // by PRR in CWR, not slow start from one segment.
        p.ack_to(4);
        assert!(!r.process_frto(&mut p.flight(1020 * NS_PER_MS), &acked(2)));
        assert_eq!((r.state(), p.w.ssthresh, p.w.cwnd), (CaState::Cwr, 5, 10));
        assert_eq!((r.frto.counter, p.stats.spurious_timeouts, p.sb.lost_out), (0, 1, 0));
        assert_eq!((r.episode.prior_ssthresh, r.episode.high_seq), (0, 10), "no undo: the reduction stays");
    }
}
