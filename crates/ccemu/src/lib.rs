//! ccemu: the kernel-mode link emulator of ccbench (Mahimahi's design, with
//! ccsim's link model).
//!
//! It opens two TUN devices, `tuns[0]` on the sender side and `tuns[1]` on
//! the receiver side (the orchestrator moves them into their namespaces),
//! and forwards IPv4 packets between them: what the sender side sends goes
//! through the scenario's downlink, what the receiver side sends through its
//! uplink, each a `ccsim::net::link::Link` driven from CLOCK_MONOTONIC.
//!
//! Protocol on stdin/stdout (one JSON or text line each):
//!   stdin  <- {"scenario": {...normalized...}, "tuns": [A, B], "packets_file": PATH|null,
//!              "spin_us": 50, "realtime_priority": 10,  (0: nice -20 only)
//!              "capture_dir": DIR, "receiver_ports": [FIRST, COUNT],  (record.pcap: capture.rs)
//!              "flow_ports": [FIRST, COUNT]}  (the flows' receivers: their RTT samples, ack_rtt.rs)
//!   stdout -> {"ready": true, "pool_slots": [..]}          (devices exist)
//!   stdin  <- go T0_NS                                      (CLOCK_MONOTONIC of the run's time 0)
//!   stdin  <- stop   (or end of input, SIGTERM, SIGINT)
//!   stdout -> {"links": {...}, "link_series": {...}, "rtt": {...}, "flow_rtt": {...},
//!              "stats": {...}, "pcap": {...}|null}
//! The emulator also stops when its parent dies (PR_SET_PDEATHSIG), and its
//! TUN devices disappear with it. `ccemu --source-id` prints the fingerprint
//! of the sources it was built from (ccsim::SOURCE_ID) and exits.

mod ack_rtt;
mod adapter;
mod capture;
mod clock;
mod forwarder;
mod host_latency;
mod ip;
mod output;
mod pool;
mod records;
mod tun;

use ccsim::net::link::Link;
use ccsim::record::series::LinkSeries;
use forwarder::Direction;
use records::PacketRecords;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

fn fail(message: String) -> ! {
    eprintln!("ccemu: {message}");
    std::process::exit(1)
}

struct Config {
    scenario_json: String,
    tuns: [String; 2],
    packets_file: Option<String>,
    spin_ns: u64,
    /// SCHED_FIFO priority of the forwarding thread while it uses little CPU
    /// (see `clock::PriorityGovernor`); 0: always a normal process at nice -20.
    realtime_priority: i32,
    /// Where a relative `record.pcap.path` is written.
    capture_dir: std::path::PathBuf,
    /// The TCP receivers' listening ports, (first, count): the capture tells
    /// a sender's packets from a receiver's by them.
    receiver_ports: (u16, u16),
    /// The flows' receivers' ports, (first, count): flow k's is first + k.
    flow_ports: (u16, u16),
}

fn parse_config(line: &str) -> Result<Config, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("config is not JSON: {e}"))?;
    let scenario = v.get("scenario").ok_or("config has no \"scenario\"")?;
    let tuns = v.get("tuns").and_then(|t| t.as_array()).ok_or("config has no \"tuns\" list")?;
    let name = |i: usize| tuns.get(i).and_then(|t| t.as_str()).map(str::to_string).ok_or("\"tuns\" needs two names");
    Ok(Config {
        scenario_json: scenario.to_string(),
        tuns: [name(0)?, name(1)?],
        packets_file: v.get("packets_file").and_then(|p| p.as_str()).map(str::to_string),
        spin_ns: v.get("spin_us").and_then(|s| s.as_u64()).unwrap_or(50) * 1000,
        realtime_priority: v.get("realtime_priority").and_then(|s| s.as_i64()).unwrap_or(10) as i32,
        capture_dir: v.get("capture_dir").and_then(|d| d.as_str()).unwrap_or(".").into(),
        receiver_ports: ports(&v, "receiver_ports")?,
        flow_ports: ports(&v, "flow_ports")?,
    })
}

/// A (first port, count) pair of the config; (0, 0) when absent.
fn ports(config: &serde_json::Value, key: &str) -> Result<(u16, u16), String> {
    match config.get(key).and_then(|r| r.as_array()).map(|r| r.as_slice()) {
        Some([first, count]) => {
            let port = |x: &serde_json::Value| x.as_u64().and_then(|x| u16::try_from(x).ok());
            Ok((port(first).ok_or(format!("bad {key}"))?, port(count).ok_or(format!("bad {key}"))?))
        }
        _ => Ok((0, 0)),
    }
}

/// The emulator's whole life, from its arguments (without the program name):
/// what `ccemu` runs, and what the Python package runs in a process of its own
/// (`python -m ccbench.emulate.ccemu`, through `ccbench._ccsim.emulator_main`),
/// so the emulator a wheel ships is built from the same sources as its core.
/// Returns the exit status; a fatal error exits the process (`fail`).
pub fn run(args: &[String]) -> i32 {
    // `ccemu --source-id`: what the front end checks before it starts a run
    // (ccsim::SOURCE_ID; an emulator built from other sources is refused).
    if args.first().map(String::as_str) == Some("--source-id") {
        println!("{}", ccsim::SOURCE_ID);
        return 0;
    }
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong);
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
    let mut first = String::new();
    if std::io::stdin().read_line(&mut first).unwrap_or(0) == 0 {
        fail("expected a JSON config line on stdin".into());
    }
    let config = parse_config(&first).unwrap_or_else(|e| fail(e));
    let path = adapter::path_from_scenario(&config.scenario_json).unwrap_or_else(|e| fail(format!("scenario: {e}")));
    let tuns = [&config.tuns[0], &config.tuns[1]]
        .map(|n| tun::Tun::open(n).unwrap_or_else(|e| fail(format!("cannot create TUN device {n}: {e}"))));
    let mut dirs: Vec<Direction> = path
        .links
        .into_iter()
        .enumerate()
        .map(|(i, l)| Direction::new(l.name, i as u8, Link::new(l.config, l.seed, l.component)))
        .collect();
    let mut records = config
        .packets_file
        .as_deref()
        .map(|p| PacketRecords::create(p).unwrap_or_else(|e| fail(format!("cannot create {p}: {e}"))));
    let mut capture = path.pcap.as_ref().map(|p| {
        let file = config.capture_dir.join(&p.path);
        capture::Capture::create(&file.to_string_lossy(), p.snaplen, p.links, config.receiver_ports)
    });
    let (first_port, flows) = config.flow_ports;
    let mut rtt = ack_rtt::AckRtt::new(first_port, flows as usize, path.rtt_samples, path.seed);
    if let Some(e) = capture.as_ref().and_then(|c| c.error()) {
        fail(format!("record.pcap.path: {e}"));
    }
    let ready =
        serde_json::json!({"ready": true, "pool_slots": dirs.iter().map(|d| d.pool_slots()).collect::<Vec<_>>()});
    println!("{ready}");
    std::io::stdout().flush().ok();

    // The control thread: "go T0" then "stop" (or end of input).
    let t0 = Arc::new(AtomicU64::new(0));
    {
        let t0 = Arc::clone(&t0);
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines().map_while(Result::ok) {
                let line = line.trim();
                if let Some(t) = line.strip_prefix("go ") {
                    t0.store(t.trim().parse().unwrap_or_else(|_| clock::monotonic_ns()), Ordering::Release);
                } else if line == "stop" {
                    break;
                }
            }
            STOP.store(true, Ordering::Relaxed);
        });
    }
    while t0.load(Ordering::Acquire) == 0 && !STOP.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let t0 = t0.load(Ordering::Acquire);
    let host = host_latency::HostLatency::start(config.realtime_priority);
    let mut governor = clock::PriorityGovernor::new(config.realtime_priority, clock::monotonic_ns());
    let clock = move || clock::monotonic_ns().saturating_sub(t0);
    let waiter = clock::Waiter::new(&[tuns[0].fd(), tuns[1].fd()]).unwrap_or_else(|e| fail(format!("epoll: {e}")));
    let mut series = LinkSeries::default();
    let interval = path.record_interval_ns.max(1_000_000);
    let mut next_sample = 0u64;
    let mut loops = 0u64;
    let mut sleeps = 0u64;
    let mut duty = clock::DutyCycle::new(clock());
    while !STOP.load(Ordering::Relaxed) {
        loops += 1;
        governor.tick(clock::monotonic_ns());
        for (d, input) in dirs.iter_mut().zip([&tuns[0], &tuns[1]]) {
            if let Err(e) = d.receive(input, &clock, &mut records, &mut capture, &mut rtt) {
                fail(format!("reading {}: {e}", input.name));
            }
        }
        let now = clock();
        for (d, output) in dirs.iter_mut().zip([&tuns[1], &tuns[0]]) {
            d.deliver(now, output, &mut records, &mut capture, &mut rtt);
        }
        if now >= next_sample {
            for d in dirs.iter_mut() {
                d.sync(now);
                series.push(now, d.index as usize, &d.link);
            }
            next_sample += interval * ((now - next_sample) / interval + 1);
        }
        let mut deadline = next_sample.min(now + 20_000_000);
        for d in &dirs {
            if let Some(w) = d.link.next_wakeup() {
                deadline = deadline.min(w);
            }
        }
        let spin_ns = if duty.may_spin(clock()) { config.spin_ns } else { 0 };
        if deadline > clock() + spin_ns {
            sleeps += 1;
            let before = clock();
            waiter.wait_until(t0 + deadline - spin_ns);
            duty.slept(clock() - before);
        }
    }
    let end = clock();
    let host_wakeups = host.finish();
    for d in dirs.iter_mut() {
        d.sync(end);
        series.push(end, d.index as usize, &d.link);
    }
    let records_ok = records.map(|r| r.finish().map_err(|e| e.to_string()));
    let files = output::Files { records: records_ok, pcap: capture.map(capture::Capture::finish) };
    let result = output::results(&dirs, series, rtt.finish(), end, loops, sleeps, &host_wakeups, &governor, files);
    println!("{result}");
    std::io::stdout().flush().ok();
    0
}
