//! Whole-simulator checks of the per-flow limit counters (tcp/chrono.rs, as
//! Linux's TCP_INFO chrono counters): a long fat path with the default send
//! buffer is send-buffer limited, a small receive buffer receive-window
//! limited, a short-RTT bulk flow limited by the network alone, and the tail
//! of a file transfer application limited.

mod common;
use common::*;

/// (busy, rwnd limited, sndbuf limited, app limited) shares of flow 0's active time.
fn shares(r: &ccsim::Results) -> (f64, f64, f64, f64) {
    let active = r.flows.f64("end_s")[0] - r.flows.f64("start_s")[0];
    let share = |c: &str| r.flows.f64(c)[0] / active;
    (share("busy_s"), share("rwnd_limited_s"), share("sndbuf_limited_s"), share("app_limited_s"))
}

#[test]
fn a_gigabit_600ms_flow_is_send_buffer_limited_most_of_the_time() {
    let r = simulate(
        r#"{"duration": 30, "downlink": {"rate": "1Gbit", "delay": "300ms", "queue": {"size": "1bdp"}},
            "flows": [{"cc": "cubic"}]}"#,
    );
    let (busy, rwnd, sndbuf, app) = shares(&r);
    assert!(busy > 0.99, "busy {busy:.3}");
    assert!(sndbuf > 0.8, "send-buffer limited {sndbuf:.3}");
    assert!(rwnd < 0.1 && app == 0.0, "rwnd {rwnd:.3}, app {app:.3}");
    assert!(goodput_bps(&r, 0) < 100e6, "the buffer, not the link, sets the rate");
}

#[test]
fn a_short_rtt_bulk_flow_is_limited_by_the_network_only() {
    let r = simulate(
        r#"{"duration": 20, "downlink": {"rate": "10Mbit", "delay": "10ms", "queue": {"size": "1bdp"}},
            "flows": [{"cc": "cubic"}]}"#,
    );
    let (busy, rwnd, sndbuf, app) = shares(&r);
    assert!(busy > 0.99, "busy {busy:.3}");
    assert!(rwnd < 0.02 && sndbuf < 0.02 && app == 0.0, "rwnd {rwnd:.3}, sndbuf {sndbuf:.3}, app {app:.3}");
}

#[test]
fn a_small_receive_buffer_makes_the_flow_receive_window_limited() {
    let r = simulate(
        r#"{"duration": 20, "downlink": {"rate": "100Mbit", "delay": "25ms", "queue": {"size": "1bdp"}},
            "flows": [{"cc": "cubic", "tcp": {"rcv_buf": "64KB"}}]}"#,
    );
    let (_, rwnd, sndbuf, _) = shares(&r);
    assert!(rwnd > 0.8, "receive-window limited {rwnd:.3}");
    assert!(sndbuf < 0.1, "send-buffer limited {sndbuf:.3}");
}

#[test]
fn a_file_transfer_is_application_limited_only_in_its_tail_and_idle_after() {
    let r = simulate(
        r#"{"duration": 10, "downlink": {"rate": "10Mbit", "delay": "50ms", "queue": {"size": "1bdp"}},
            "flows": [{"cc": "reno", "size": "1MB"}]}"#,
    );
    let completion = r.flows.f64("completion_s")[0];
    let busy = r.flows.f64("busy_s")[0];
    let app = r.flows.f64("app_limited_s")[0];
    assert!(completion < 5.0, "completes in {completion}");
    assert!((busy - completion).abs() < 0.15, "busy {busy} for a transfer of {completion} s");
    assert!(app > 0.0 && app < 0.3, "app limited {app} s: the last flight's round trip");
}
