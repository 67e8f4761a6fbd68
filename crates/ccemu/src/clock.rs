//! The wall clock of the emulator and a precise wait: CLOCK_MONOTONIC (the
//! same clock for every namespace, so the flows' timestamps line up with the
//! links'), a timerfd armed a little before the deadline, and a spin for the
//! last microseconds, so the wait error is not the scheduler's (tens of
//! microseconds to milliseconds) but the spin loop's (well under one).

use std::io;
use std::os::fd::RawFd;

/// Nanoseconds of CLOCK_MONOTONIC.
#[inline]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `ns` nanoseconds of a clock as a timespec.
pub fn timespec(ns: u64) -> libc::timespec {
    libc::timespec { tv_sec: (ns / 1_000_000_000) as libc::time_t, tv_nsec: (ns % 1_000_000_000) as libc::c_long }
}

/// Sets the calling thread's timer slack to 1 ns, so the kernel does not
/// defer its timers' expiry (by 50 us by default) to group wake-ups.
pub fn exact_timer_slack() {
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// Puts the calling thread in SCHED_FIFO at `priority`, so that compiles
/// and other load on a shared machine do not delay the forwarding loop (it
/// sleeps between deadlines, and the kernel's RT throttling keeps a share of
/// CPU for others). Returns false if not permitted.
pub fn make_realtime(priority: i32) -> bool {
    let param = libc::sched_param { sched_priority: priority };
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Gives the calling thread the highest normal priority (nice -20): on a
/// shared machine it then gets nearly all the CPU it asks for and is woken
/// promptly, without the real-time throttle's 50 ms stalls that SCHED_FIFO
/// suffers once forwarding (which runs the receiving stack in this thread)
/// takes 95% of a CPU. Does nothing if not permitted.
pub fn raise_priority() {
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, -20) };
}

/// Chooses the forwarding thread's scheduling class from the CPU it used in
/// the last 10 ms: SCHED_FIFO (woken before any normal process, so a loaded
/// machine delays deliveries least) while it uses under `FIFO_MAX_SHARE` of a
/// CPU, nice -20 above that, so it never reaches the kernel's real-time
/// throttle (95% of each second, then a 50 ms stall), and FIFO again once
/// the load falls under `FIFO_RETURN_SHARE`.
pub struct PriorityGovernor {
    priority: i32,
    fifo: bool,
    window_start_ns: u64,
    cpu_at_start_ns: u64,
    pub switches: u64,
}

const GOVERNOR_WINDOW_NS: u64 = 10_000_000;
const FIFO_MAX_SHARE: f64 = 0.8;
const FIFO_RETURN_SHARE: f64 = 0.5;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl PriorityGovernor {
    /// Starts in SCHED_FIFO at `priority` if permitted (0: nice -20 only).
    pub fn new(priority: i32, now_ns: u64) -> PriorityGovernor {
        raise_priority();
        let fifo = priority > 0 && make_realtime(priority);
        PriorityGovernor { priority, fifo, window_start_ns: now_ns, cpu_at_start_ns: thread_cpu_ns(), switches: 0 }
    }

    pub fn realtime(&self) -> bool {
        self.fifo
    }

    #[inline]
    pub fn tick(&mut self, now_ns: u64) {
        let wall = now_ns.saturating_sub(self.window_start_ns);
        if wall < GOVERNOR_WINDOW_NS || self.priority <= 0 {
            return;
        }
        let cpu = thread_cpu_ns();
        let share = (cpu - self.cpu_at_start_ns) as f64 / wall as f64;
        self.window_start_ns = now_ns;
        self.cpu_at_start_ns = cpu;
        if self.fifo && share > FIFO_MAX_SHARE {
            let param = libc::sched_param { sched_priority: 0 };
            unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &param) };
            raise_priority();
            self.fifo = false;
            self.switches += 1;
        } else if !self.fifo && share < FIFO_RETURN_SHARE && make_realtime(self.priority) {
            self.fifo = true;
            self.switches += 1;
        }
    }
}

/// Keeps the forwarding thread from spinning more than `MAX_RUN_SHARE` of
/// each 100 ms window. On a busy link the next deadline is nearly always
/// inside the spin margin, so spinning alone would take a whole core from a
/// shared machine (and, under SCHED_FIFO, run into the kernel's real-time
/// throttle: 95% of each second, then a 50 ms stall). Past the share the
/// loop waits on the microsecond timer only, until the next window.
pub struct DutyCycle {
    window_start_ns: u64,
    slept_ns: u64,
}

const WINDOW_NS: u64 = 100_000_000;
const MAX_RUN_SHARE: f64 = 0.8;

impl DutyCycle {
    pub fn new(now_ns: u64) -> DutyCycle {
        DutyCycle { window_start_ns: now_ns, slept_ns: 0 }
    }

    /// Whether the loop may spin now.
    #[inline]
    pub fn may_spin(&mut self, now_ns: u64) -> bool {
        let elapsed = now_ns.saturating_sub(self.window_start_ns);
        if elapsed >= WINDOW_NS {
            self.window_start_ns = now_ns;
            self.slept_ns = 0;
            return true;
        }
        ((elapsed - self.slept_ns.min(elapsed)) as f64) < MAX_RUN_SHARE * WINDOW_NS as f64
    }

    #[inline]
    pub fn slept(&mut self, ns: u64) {
        self.slept_ns += ns;
    }
}

/// Waits on file descriptors and deadlines: epoll over the inputs and a timerfd.
pub struct Waiter {
    epoll: RawFd,
    timer: RawFd,
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl Waiter {
    /// Watches `inputs` for readability. Also sets this thread's timer slack
    /// to 1 ns so the kernel does not defer the timer's expiry.
    pub fn new(inputs: &[RawFd]) -> io::Result<Waiter> {
        exact_timer_slack();
        let epoll = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        let timer =
            check(unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) })?;
        for &fd in inputs.iter().chain([&timer]) {
            let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: fd as u64 };
            check(unsafe { libc::epoll_ctl(epoll, libc::EPOLL_CTL_ADD, fd, &mut ev) })?;
        }
        Ok(Waiter { epoll, timer })
    }

    /// Sleeps until an input is readable or CLOCK_MONOTONIC reaches `wake_ns`.
    pub fn wait_until(&self, wake_ns: u64) {
        let spec =
            libc::itimerspec { it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 }, it_value: timespec(wake_ns) };
        unsafe {
            libc::timerfd_settime(self.timer, libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut());
            let mut events = [libc::epoll_event { events: 0, u64: 0 }; 4];
            libc::epoll_wait(self.epoll, events.as_mut_ptr(), events.len() as libc::c_int, -1);
            let mut expirations = 0u64;
            libc::read(self.timer, (&mut expirations as *mut u64).cast(), 8);
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        unsafe {
            libc::close(self.timer);
            libc::close(self.epoll);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinning_stops_at_the_run_share_until_the_next_window() {
        let mut d = DutyCycle::new(0);
        assert!(d.may_spin(10_000_000));
        d.slept(5_000_000);
        assert!(d.may_spin(80_000_000)); // ran 75 ms of 80
        assert!(!d.may_spin(90_000_000)); // ran 85 ms of 90
        assert!(d.may_spin(100_000_000)); // a new window
    }

    #[test]
    fn waits_at_least_until_the_deadline() {
        let w = Waiter::new(&[]).unwrap();
        let start = monotonic_ns();
        w.wait_until(start + 2_000_000);
        assert!(monotonic_ns() >= start + 2_000_000);
    }
}
