//! One direction of the emulated path: packets read from one TUN device go
//! through a ccsim `Link` and are written to the other device when the link
//! model delivers them. The link is told the wall-clock time (nanoseconds
//! since the run's start) exactly as the simulator tells it the event time.

use crate::ack_rtt::AckRtt;
use crate::capture::Capture;
use crate::ip;
use crate::pool::{Pool, SLOT_BYTES};
use crate::records::{self, Lateness, PacketRecords};
use crate::tun::Tun;
use ccsim::net::link::Link;
use ccsim::net::pool::{PacketId, PacketPool};
use ccsim::net::queue::Capacity;

/// Packets read from a device per call, so one busy input cannot starve the
/// other direction or the timer.
pub const READ_BATCH: usize = 256;

/// Problems counted per direction (none of them is a link-model decision).
#[derive(Default, Clone, Copy, Debug)]
pub struct Anomalies {
    /// Packets that were not IPv4 (dropped: the namespaces run IPv4 only).
    pub not_ipv4: u64,
    /// Packets the model delivered after their ring slot had been reused.
    pub overruns: u64,
    /// Packets the receiving device refused.
    pub write_failures: u64,
    /// Reads longer than a slot (impossible without GSO; counted to prove it).
    pub oversize: u64,
}

pub struct Direction {
    pub name: &'static str,
    pub index: u8,
    pub link: Link,
    pool: Pool,
    /// The link model's packets (the `Packet` beside each ring slot's bytes).
    packets: PacketPool,
    delivered: Vec<PacketId>,
    pub anomalies: Anomalies,
    pub lateness: Lateness,
}

/// Ring slots for a link: its queue plus what its delay line can hold at
/// full rate in packets of 100 bytes or more, with room to spare.
pub fn pool_slots(link: &Link) -> usize {
    let queue_pkts = match link.config().queue.capacity() {
        Capacity::Packets(p) => p,
        Capacity::Bytes(b) => b / 40,
    };
    let wire_pkts = link.mean_rate_bps() * (link.config().delay_ns as f64 / 1e9 + 0.05) / 800.0;
    (queue_pkts as usize + wire_pkts as usize + 4096).clamp(4096, 65_536)
}

impl Direction {
    pub fn new(name: &'static str, index: u8, link: Link) -> Direction {
        let pool = Pool::new(pool_slots(&link));
        Direction {
            name,
            index,
            link,
            pool,
            packets: PacketPool::new(),
            delivered: Vec::with_capacity(READ_BATCH * 4),
            anomalies: Anomalies::default(),
            lateness: Lateness::default(),
        }
    }

    pub fn pool_slots(&self) -> usize {
        self.pool.slots()
    }

    /// Brings the link up to `now` (see `Link::sync`).
    pub fn sync(&mut self, now: u64) {
        self.link.sync(now, &mut self.packets);
    }

    /// Reads up to READ_BATCH packets from `input` and queues them on the
    /// link at their arrival time (`clock()`: nanoseconds since the start),
    /// showing each to the packet capture and the RTT measurement. Returns
    /// how many were read.
    #[inline]
    pub fn receive(
        &mut self,
        input: &Tun,
        clock: &impl Fn() -> u64,
        records: &mut Option<PacketRecords>,
        capture: &mut Option<Capture>,
        rtt: &mut AckRtt,
    ) -> std::io::Result<usize> {
        let mut n = 0;
        while n < READ_BATCH {
            let buf = self.pool.next_buffer();
            let Some(len) = input.read(buf)? else { break };
            n += 1;
            if len >= SLOT_BYTES {
                self.anomalies.oversize += 1;
                continue;
            }
            let Some(mut p) = ip::to_packet(&buf[..len]) else {
                self.anomalies.not_ipv4 += 1;
                continue;
            };
            let now = clock();
            if let Some(c) = capture {
                c.on_enter(self.index, now, &p, &buf[..len]);
            }
            rtt.on_sent(now, &p, &buf[..len]);
            p.seq = self.pool.commit(len);
            let id = self.packets.insert(p);
            if !self.link.enqueue(now, id, &mut self.packets) {
                if let Some(r) = records {
                    r.push(now, 0, p.flow, p.wire_bytes, self.index, records::DROPPED_AT_ENQUEUE, false);
                }
            }
        }
        Ok(n)
    }

    /// If the link has something due by `now`, runs it and writes what it
    /// delivers to `output` (shown to the packet capture and the RTT
    /// measurement once written).
    #[inline]
    pub fn deliver(
        &mut self,
        now: u64,
        output: &Tun,
        records: &mut Option<PacketRecords>,
        capture: &mut Option<Capture>,
        rtt: &mut AckRtt,
    ) {
        let Some(due) = self.link.next_wakeup() else { return };
        if due > now {
            return;
        }
        self.link.advance(now, &mut self.packets, &mut self.delivered);
        if self.delivered.is_empty() {
            return;
        }
        self.lateness.add(now - due);
        for id in self.delivered.drain(..) {
            let p = self.packets.remove(id);
            let outcome = match self.pool.get_mut(p.seq) {
                None => {
                    self.anomalies.overruns += 1;
                    records::OVERRUN
                }
                Some(bytes) => {
                    if p.ce {
                        ip::mark_ce(bytes);
                    }
                    if output.write(bytes) {
                        if let Some(c) = capture {
                            c.on_delivery(self.index, now, &p, bytes);
                        }
                        rtt.on_delivered(now, &p, bytes);
                        records::DELIVERED
                    } else {
                        self.anomalies.write_failures += 1;
                        records::WRITE_FAILED
                    }
                }
            };
            if let Some(r) = records {
                r.push(p.enqueued_at, now, p.flow, p.wire_bytes, self.index, outcome, p.ce);
            }
        }
    }
}
