//! How late the host wakes a thread, measured while the emulator runs (the
//! idea of rt-tests' cyclictest): a thread in the forwarding thread's
//! scheduling class sleeps to an absolute 1 ms grid, and each mark of the
//! grid gets the lateness a wake-up due then suffered. A stall of 30 ms thus
//! gives 30 marks, late by 29, 28, ... 0 ms: the distribution is over time,
//! what a packet due at a random instant would have waited for the CPU.
//!
//! Why: the emulator's delays are only as exact as the host's wake-ups. On a
//! virtual machine whose host is busy, an idle virtual CPU can wait
//! milliseconds to run again, and no user-space emulator (Mahimahi's
//! included) can deliver a packet while it does not run. This measurement,
//! made beside the forwarding loop but independent of it, tells the user
//! (and the kernel-mode tests) how much of a run's delay error the host
//! caused: a quiet host shows tens of microseconds, a disturbed one
//! milliseconds.

use crate::clock;
use crate::records::Lateness;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The grid's period: often enough to see a stall of a few milliseconds, rare
/// enough to cost the forwarding loop nothing measurable (a few microseconds
/// of CPU per millisecond).
const PERIOD_NS: u64 = 1_000_000;

/// The watchdog thread; `finish` stops it and returns what it measured.
pub struct HostLatency {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Lateness>,
}

impl HostLatency {
    /// Starts measuring, in SCHED_FIFO at `realtime_priority` when that is
    /// permitted and positive (as the forwarding thread starts), at nice -20
    /// otherwise.
    pub fn start(realtime_priority: i32) -> HostLatency {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                clock::raise_priority();
                if realtime_priority > 0 {
                    clock::make_realtime(realtime_priority);
                }
                clock::exact_timer_slack();
                measure(&stop)
            })
        };
        HostLatency { stop, thread }
    }

    pub fn finish(self) -> Lateness {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

fn measure(stop: &AtomicBool) -> Lateness {
    let mut lateness = Lateness::default();
    let mut mark = clock::monotonic_ns() + PERIOD_NS;
    while !stop.load(Ordering::Relaxed) {
        sleep_until(mark);
        mark = record_marks(mark, clock::monotonic_ns(), &mut lateness);
    }
    lateness
}

/// Records the lateness of every mark from `mark` up to `now` (one, unless
/// the thread was stalled for more than a period) and returns the next mark.
fn record_marks(mut mark: u64, now: u64, lateness: &mut Lateness) -> u64 {
    while mark <= now {
        lateness.add(now - mark);
        mark += PERIOD_NS;
    }
    mark
}

/// Sleeps until CLOCK_MONOTONIC reaches `mark_ns` (an absolute sleep, so the
/// time spent between wake-ups does not shift the grid).
fn sleep_until(mark_ns: u64) {
    let ts = clock::timespec(mark_ns);
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_one_lateness_per_period_and_stops() {
        let started = std::time::Instant::now();
        let watchdog = HostLatency::start(0);
        std::thread::sleep(std::time::Duration::from_millis(50));
        let l = watchdog.finish();
        let periods = started.elapsed().as_nanos() as u64 / PERIOD_NS;
        assert!((1..=periods + 1).contains(&l.count()), "{} marks in {periods} periods", l.count());
        assert!(l.max_us() >= l.mean_us());
    }

    #[test]
    fn a_stall_counts_for_every_mark_it_covered() {
        let ms = PERIOD_NS;
        let mut l = Lateness::default();
        assert_eq!(record_marks(10 * ms, 10 * ms + 3_000, &mut l), 11 * ms);
        assert_eq!(l.count(), 1);
        // Woken 3.5 periods late: marks 11, 12, 13 and 14 ms waited 3.5, 2.5, 1.5 and 0.5 ms.
        assert_eq!(record_marks(11 * ms, 14 * ms + ms / 2, &mut l), 15 * ms);
        assert_eq!(l.count(), 5);
        assert_eq!(l.max_us(), 3500.0);
        assert_eq!(l.mean_us(), (3.0 + 3500.0 + 2500.0 + 1500.0 + 500.0) / 5.0);
    }
}
