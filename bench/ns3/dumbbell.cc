// dumbbell.cc -- ns-3 (3.37) reference scenario for ccbench cross-checks.
//
// What it is
// ----------
// A classic dumbbell: N TCP bulk senders, each on its own access link, feed
// router R1; R1 -> R2 is the single bottleneck point-to-point link; R2 fans out
// to N receivers (PacketSink).  Every flow is one BulkSendApplication that
// always has data, so this measures the steady behaviour of the chosen
// congestion-control algorithm against a plain drop-tail bottleneck.
//
//   S0 --\                                  /-- D0
//   S1 ---+-- R1 ====(bottleneck)==== R2 --+--- D1
//   ...  /                                  \   ...
//
// What it mirrors
// ---------------
// The ccbench simulator (Rust core) models Linux TCP, so the TCP knobs below are
// set to Linux defaults rather than ns-3 defaults:
//   SegmentSize 1448 (1500-byte IP packets with the 12-byte timestamp option),
//   InitialCwnd 10, DelAckCount 2, DelAckTimeout 40 ms (ns-3 default 200 ms),
//   Timestamps on, SACK on (switchable), MinRto 200 ms (ns-3 default 1 s),
//   ClockGranularity 1 ms, PRR recovery (switchable to classic), send/receive
//   buffers large enough never to limit the window (ns-3 default 128 KiB).
//
// Queueing: ns-3 installs an fq_codel queue disc on every device when IPv4
// addresses are assigned.  We remove it from every device, so each NetDevice's
// own DropTailQueue is the only queue.  On the bottleneck device (R1 -> R2) that
// queue is sized as requested (--bufferBdp / --bufferPkts); every other queue is
// made so large that it never drops.  The packet being serialised is not
// counted in the queue (ns-3 dequeues it before transmission starts).
// Exception: with --ecnThresholdPkts > 0 a RED queue disc configured as a
// DCTCP-style step marker (mark when the instantaneous queue >= K) is put on
// the bottleneck device instead, with the device queue shrunk to 1 packet.
//
// PIE (--queue=pie): ns-3's PieQueueDisc on the bottleneck device, the device
// queue shrunk to 1 packet, configured as ccbench's PIE (Linux sch_pie
// defaults, include/net/pie.h pie_params_init / pie_vars_init) rather than
// ns-3's: QueueDelayReference 15 ms, Tupdate 15 ms, A 0.125, B 1.25,
// MaxBurstAllowance 150 ms (ns-3: 15 ms), MaxSize 1000p (ns-3: 25p),
// UseDerandomization true (ns-3: false; Linux always derandomizes),
// UseDequeueRateEstimator false (Linux's default timestamp mode),
// UseCapDropAdjustment true, UseEcn false, MeanPktSize 1500 (unused in packet
// mode).  --queuePkts overrides the 1000p limit.  Behaviours that still
// differ from Linux (ns-3 3.37 pie-queue-disc.cc vs sch_pie.c + pie.h):
//   * the first probability update runs at t = Supdate = 0 (Linux: 500 ms);
//   * the burst allowance shrinks by Tupdate per update (RFC 8033 4.4) and
//     p is held at 0 while it lasts; Linux shrinks it by the time between
//     dequeues and keeps updating p;
//   * the work-conserving safeguard tests qdelay_old (Linux: qdelay), and the
//     two-packet floor is "at most 2 packets queued" (Linux: under 2 MTUs);
//   * the idle decay is p *= 0.98 (Linux: 63/64) and there is no +2% step
//     above 250 ms of delay;
//   * the timestamp-mode delay is the sojourn of the last dequeued packet,
//     0 when the queue is then empty - as Linux.
// The reported queueing delay is the QueueDisc SojournTime of every packet
// (enqueue to dequeue by the device), which leaves out the one packet the
// device queue may hold behind the one being sent (< 1 serialisation time).
//
// Links: bottleneck = --rateMbps, one-way propagation delay --delayMs.  Access
// links run at 10x the bottleneck rate with ZERO propagation delay (ns-3's
// PointToPointChannel accepts a delay of 0), so the base RTT is 2*delayMs plus
// serialisation times.
//
// Random loss (--lossRate=p): a receive error model on R2's end of the
// bottleneck (DataLossModel below) loses each data packet that has crossed the
// link with probability p, independently (Bernoulli per packet).  ccbench's
// `loss = { model = "bernoulli", p }` on its downlink draws at the same point:
// per frame, once the frame's transmission at the link rate has ended
// (crates/ccsim/src/net/link.rs over_the_air, loss model in
// net/channel/loss.rs), so a lost packet still took its time on the link and
// the queue behind it; it counts as the links table's `channel_losses`.  The
// downlink carries only data in the dumbbell (ACKs ride the uplink), and
// ccbench has no SYN or FIN packets, so ns-3 draws for packets with TCP
// payload only.  The two draw from different random streams: the same rate,
// not the same packets.
//
// Mixed algorithms (--ccList=NewReno:4,Cubic:4,...): flow i's sender node's
// TcpL4Protocol gets its algorithm's TypeId (SocketType), in list order;
// per_flow_cc in the output names each flow's, so per-algorithm goodput can
// be summed from per_flow_goodput_bps.  ccbench: one [[flows]] entry per
// algorithm with its count, in the same order.
//
// Output: exactly one JSON object on stdout; all diagnostics go to stderr.
//
// Known ns-3 3.37 differences from Linux worth keeping in mind when comparing:
//  * With timestamps on, ns-3 takes RTT samples from TSecr, and its TS clock
//    ticks in whole milliseconds: RTT samples are truncated to 1 ms (min RTT
//    reads exactly 2*delay).  Delay-based algorithms (Vegas, Lp, Veno, Yeah,
//    Illinois, Cubic's HyStart) see that quantisation; Linux uses us clocks.
//  * No RACK/TLP and no TCP small queues: a lost retransmission is only
//    recovered by an RTO (typical right after slow-start overshoot).
//  * TcpBbr: after an RTO a single flow can collapse to a cwnd of 1-2
//    segments with a pacing rate of a few kbit/s and never recover (seen at
//    100 Mbit/s x 50 ms, 1 BDP buffer).  TcpLp with timestamps on keeps cwnd
//    near 1-4 segments.  These are ns-3 model behaviours, not harness bugs.
//  * TcpCubic's TypeId lists TcpSocketBase as its parent (see cc selection).
//
// Raw ns-3 attributes can still be overridden on the command line, e.g.
// --ns3::TcpSocket::DelAckCount=1 (the fixed Linux defaults are set before
// parsing; values derived from our own flags are set after it).
//
// Build: bench/ns3/build.sh   Run: bench/ns3/build/dumbbell --cc=Cubic --flows=1 ...

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// ---------------------------------------------------------------------------
// Per-flow statistics collected from trace sources.
// ---------------------------------------------------------------------------
struct FlowStats
{
    bool anyDataSent = false;
    SequenceNumber32 highEnd{0}; // one past the highest data byte ever sent
    uint64_t dataSegments = 0;   // data segments handed to IP (new + retransmitted)
    uint64_t retxSegments = 0;   // of which retransmissions
    double rttSumS = 0.0;        // sum of RTT samples (seconds)
    double rttMinS = 1e300;      // smallest RTT sample (seconds)
    uint64_t rttCount = 0;       // number of RTT samples
    uint64_t recoveryEvents = 0; // entries into CA_RECOVERY (fast recovery)
    uint64_t lossEvents = 0;     // entries into CA_LOSS (retransmission timeout)
};

static std::vector<FlowStats> g_flows;
static std::map<uint32_t, uint32_t> g_nodeToFlow; // sender node id -> flow index

// Optional time series (--traceFile): "time_s flow event value" lines for
// cwnd (bytes), ssthresh (bytes), congestion state and retransmissions.
static std::ofstream* g_trace = nullptr;

// Retransmission counting.
// The TcpSocketBase "Tx" trace fires for every segment the socket hands to IP,
// with the TCP header.  A data segment (payload > 0) whose sequence number is
// below the end of the highest data already sent is a retransmission (fast
// retransmit, PRR/SACK-driven retransmission or RTO go-back-N all look like
// this); otherwise it is new data and advances the high-water mark.  Sequence
// comparisons use SequenceNumber32, which is wrap-around safe.  SYN/FIN/pure
// ACKs (payload 0) are ignored.
static void
OnTcpTx(uint32_t flow, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    FlowStats& f = g_flows[flow];
    SequenceNumber32 seq = h.GetSequenceNumber();
    SequenceNumber32 end = seq + SequenceNumber32(len);
    f.dataSegments++;
    if (f.anyDataSent && seq < f.highEnd)
    {
        f.retxSegments++;
        if (g_trace)
        {
            *g_trace << Simulator::Now().GetSeconds() << ' ' << flow << " retx " << seq << '\n';
        }
    }
    if (!f.anyDataSent || end > f.highEnd)
    {
        f.highEnd = end;
    }
    f.anyDataSent = true;
}

static void
OnCwnd(uint32_t flow, uint32_t, uint32_t now)
{
    *g_trace << Simulator::Now().GetSeconds() << ' ' << flow << " cwnd " << now << '\n';
}

static void
OnSsthresh(uint32_t flow, uint32_t, uint32_t now)
{
    *g_trace << Simulator::Now().GetSeconds() << ' ' << flow << " ssthresh " << now << '\n';
}

static void
OnCongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (g_trace)
    {
        *g_trace << Simulator::Now().GetSeconds() << ' ' << flow << " state "
                 << TcpSocketState::TcpCongStateName[now] << '\n';
    }
    if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[flow].recoveryEvents++;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[flow].lossEvents++;
    }
}

// ---------------------------------------------------------------------------
// RTT sampling.
//
// What is averaged: every RTT sample that a sender socket feeds into its RTT
// estimator, i.e. the raw per-ACK measurement TcpSocketBase::EstimateRtt()
// computes when an ACK arrives (with timestamps on: now - TSecr, at ns-3's 1 ms
// timestamp resolution; Karn's rule applies when timestamps are off).  These
// are the same samples that drive SRTT/RTO.  mean_rtt_ms = sum of all samples
// of all flows / number of samples.
//
// Why not the socket's "RTT" trace source: it is a TracedValue, which only
// fires when the value *changes*, so runs of identical (1 ms-quantised)
// samples would be dropped and the mean biased.  Instead the sender nodes'
// TcpL4Protocol is told to build this RttMeanDeviation subclass, which records
// each Measurement() call and then behaves exactly like the stock estimator.
// The flow is identified from the simulator context (= id of the node whose
// event is running, i.e. the sender receiving the ACK).
// ---------------------------------------------------------------------------
class RecordingRttEstimator : public RttMeanDeviation
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcbenchRecordingRttEstimator")
                                .SetParent<RttMeanDeviation>()
                                .SetGroupName("Internet")
                                .AddConstructor<RecordingRttEstimator>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Measurement(Time m) override
    {
        auto it = g_nodeToFlow.find(Simulator::GetContext());
        if (it != g_nodeToFlow.end())
        {
            FlowStats& f = g_flows[it->second];
            f.rttSumS += m.GetSeconds();
            f.rttMinS = std::min(f.rttMinS, m.GetSeconds());
            f.rttCount++;
        }
        RttMeanDeviation::Measurement(m);
    }

    Ptr<RttEstimator> Copy() const override
    {
        return CopyObject<RecordingRttEstimator>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(RecordingRttEstimator);

// ---------------------------------------------------------------------------
// Bottleneck counters.
// ---------------------------------------------------------------------------
static uint64_t g_bottleneckTxPackets = 0; // PhyTxEnd on R1's bottleneck device
static uint64_t g_bottleneckDrops = 0;     // drops at the bottleneck (device queue, TC layer, qdisc)
static uint64_t g_bottleneckMarks = 0;     // ECN CE marks by the RED step marker
static uint64_t g_otherDrops = 0;          // drops anywhere else (should stay 0)
static uint64_t g_randomLosses = 0;        // data packets lost by --lossRate (DataLossModel)

// ---------------------------------------------------------------------------
// Random loss of data packets on the bottleneck (--lossRate).
//
// A receive error model on R2's bottleneck device: a packet has been
// serialised at the bottleneck rate and has crossed the link when it is drawn
// lost, independently with probability lossRate (Bernoulli per packet).  Only
// packets that carry TCP payload are drawn; SYN, FIN and pure ACKs always
// pass.  (RateErrorModel with ERROR_UNIT_PACKET draws the same way, but for
// every packet: a lost SYN would cost a flow ns-3's 3 s connection timeout,
// which ccbench, with no handshake, has no counterpart of.)
// ---------------------------------------------------------------------------
class DataLossModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CcbenchDataLossModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Network")
                                .AddConstructor<DataLossModel>();
        return tid;
    }

    DataLossModel()
        : m_uniform(CreateObject<UniformRandomVariable>())
    {
    }

    void Configure(double rate, int64_t stream)
    {
        m_rate = rate;
        m_uniform->SetStream(stream);
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        // The packet as R2's device receives it: PPP, IPv4 and TCP headers.
        Ptr<Packet> copy = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        copy->RemoveHeader(ppp);
        copy->RemoveHeader(ip);
        if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
        {
            return false;
        }
        copy->RemoveHeader(tcp);
        if (copy->GetSize() == 0 || m_uniform->GetValue() >= m_rate)
        {
            return false;
        }
        ++g_randomLosses;
        return true;
    }

    void DoReset() override
    {
    }

    double m_rate = 0.0;
    Ptr<UniformRandomVariable> m_uniform;
};

NS_OBJECT_ENSURE_REGISTERED(DataLossModel);

// Occupancy of the bottleneck buffer (device queue, or the RED queue disc in
// ECN mode), from its PacketsInQueue trace: maximum and time average.
struct QueueOccupancy
{
    uint32_t current = 0;
    uint32_t max = 0;
    double lastChangeS = 0.0;
    double areaPktS = 0.0; // integral of occupancy over time

    void Advance(double nowS)
    {
        areaPktS += current * (nowS - lastChangeS);
        lastChangeS = nowS;
    }
};

static QueueOccupancy g_queue;

// Queueing delay at the bottleneck queue disc (--queue=pie): every packet's
// sojourn time from --steadyFromS on, and its sum and count per 10 ms bin
// (the bins give ccbench's link-series view: mean sojourn per interval).
static double g_steadyFromS = 0.0;
static std::vector<double> g_sojournMs;
static const double kBinS = 0.010;
static std::vector<double> g_binSumMs;
static std::vector<uint32_t> g_binCount;

static void
OnSojourn(Time t)
{
    const double now = Simulator::Now().GetSeconds();
    if (now < g_steadyFromS)
    {
        return;
    }
    const double ms = t.GetSeconds() * 1000.0;
    g_sojournMs.push_back(ms);
    const size_t bin = static_cast<size_t>((now - g_steadyFromS) / kBinS);
    if (bin >= g_binSumMs.size())
    {
        g_binSumMs.resize(bin + 1, 0.0);
        g_binCount.resize(bin + 1, 0);
    }
    g_binSumMs[bin] += ms;
    g_binCount[bin]++;
}

// The q-quantile (nearest rank) of weighted values.
static double
WeightedQuantile(std::vector<std::pair<double, double>> vw, double q)
{
    if (vw.empty())
    {
        return NAN;
    }
    std::sort(vw.begin(), vw.end());
    double total = 0.0;
    for (const auto& x : vw)
    {
        total += x.second;
    }
    double acc = 0.0;
    for (const auto& x : vw)
    {
        acc += x.second;
        if (acc >= q * total)
        {
            return x.first;
        }
    }
    return vw.back().first;
}

static void
OnQueueLength(uint32_t, uint32_t now)
{
    g_queue.Advance(Simulator::Now().GetSeconds());
    g_queue.current = now;
    g_queue.max = std::max(g_queue.max, now);
}

static void
CountPacket(uint64_t* counter, Ptr<const Packet>)
{
    ++*counter;
}

static void
CountQdiscItem(uint64_t* counter, Ptr<const QueueDiscItem>)
{
    ++*counter;
}

static void
CountQdiscMark(uint64_t* counter, Ptr<const QueueDiscItem>, const char*)
{
    ++*counter;
}

// Attach the per-socket traces once BulkSendApplication has created its socket
// (it does so in StartApplication, so this is scheduled just after the start).
static void
HookSenderSocket(Ptr<BulkSendApplication> app, uint32_t flow)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!sock, "flow " << flow << ": sender socket is not a TcpSocketBase");
    sock->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, flow));
    sock->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, flow));
    if (g_trace)
    {
        sock->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, flow));
        sock->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, flow));
    }
}

// Minimal JSON number formatting (finite doubles only; NaN -> null).
static std::string
Num(double v)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    std::ostringstream os;
    os.precision(12);
    os << v;
    return os.str();
}

int
main(int argc, char* argv[])
{
    std::string cc = "Cubic";
    uint32_t flows = 1;
    double rateMbps = 100.0;
    double delayMs = 50.0;
    double bufferBdp = 1.0;
    uint32_t bufferPkts = 0;
    double duration = 60.0;
    uint32_t seed = 1;
    double minRtoMs = 200.0;
    bool sack = true;
    std::string recovery = "prr";
    uint32_t ecnThresholdPkts = 0;
    double staggerMs = 0.0;
    std::string traceFile;
    std::string queue = "droptail";
    uint32_t queuePktsPie = 1000;
    double udpMbps = 0.0;
    bool noTcp = false;
    double lossRate = 0.0;
    std::string ccList;

    // Linux-like TCP defaults that do not depend on our parameters.  Set before
    // parsing so that raw ns-3 attributes given on the command line (e.g.
    // --ns3::TcpSocket::DelAckCount=1) can still override them for experiments.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448)); // ns-3 default 536
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40))); // ns-3: 200 ms
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));

    CommandLine cmd(__FILE__);
    cmd.AddValue("cc",
                 "congestion control: NewReno Cubic Bic Vegas WestwoodPlus Westwood Bbr Hybla "
                 "Veno Illinois Htcp HighSpeed Scalable Yeah Lp Ledbat Dctcp LinuxReno",
                 cc);
    cmd.AddValue("flows", "number of bulk TCP flows", flows);
    cmd.AddValue("rateMbps", "bottleneck rate in Mbit/s", rateMbps);
    cmd.AddValue("delayMs", "one-way propagation delay of the bottleneck link in ms", delayMs);
    cmd.AddValue("bufferBdp",
                 "drop-tail buffer as a multiple of BDP = rate*2*delay in 1500-byte packets",
                 bufferBdp);
    cmd.AddValue("bufferPkts", "drop-tail buffer in packets (overrides --bufferBdp if > 0)",
                 bufferPkts);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("seed", "RngSeedManager run number", seed);
    cmd.AddValue("minRtoMs", "minimum RTO in ms", minRtoMs);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("recovery", "loss recovery: prr | classic", recovery);
    cmd.AddValue("ecnThresholdPkts",
                 "if > 0: RED step marker (mark CE when queue >= K pkts) instead of plain "
                 "drop-tail; senders use ECN",
                 ecnThresholdPkts);
    cmd.AddValue("staggerMs",
                 "flow i starts at i*staggerMs/flows ms (total spread < staggerMs); 0 = all at t=0",
                 staggerMs);
    cmd.AddValue("queue", "bottleneck queue: droptail | pie (ns-3 PieQueueDisc, Linux defaults)", queue);
    cmd.AddValue("queuePkts", "--queue=pie: the queue disc's limit in packets (Linux default 1000)",
                 queuePktsPie);
    cmd.AddValue("steadyFromS", "queueing-delay statistics count packets dequeued from this time on",
                 g_steadyFromS);
    cmd.AddValue("udpMbps", "if > 0: a constant-bit-rate UDP source of this many Mbit/s (IP bytes) "
                 "from sender 0 to receiver 0", udpMbps);
    cmd.AddValue("noTcp", "start no TCP flow (with --udpMbps: the queue under unresponsive load only)", noTcp);
    cmd.AddValue("traceFile", "if set: write a cwnd/ssthresh/state/retx time series here", traceFile);
    cmd.AddValue("lossRate",
                 "if > 0: each data packet crossing the bottleneck is lost with this probability "
                 "(after its transmission; see DataLossModel)",
                 lossRate);
    cmd.AddValue("ccList",
                 "mixed algorithms, e.g. NewReno:4,Cubic:4 (flows in this order; sets --flows; "
                 "overrides --cc)",
                 ccList);
    cmd.Parse(argc, argv);

    NS_ABORT_MSG_IF(lossRate < 0 || lossRate >= 1, "--lossRate must be in [0, 1)");
    // Per flow, the algorithm's name as given (--ccList, else --cc for all).
    std::vector<std::string> flowCc;
    if (!ccList.empty())
    {
        std::istringstream items(ccList);
        std::string item;
        while (std::getline(items, item, ','))
        {
            const size_t colon = item.find(':');
            NS_ABORT_MSG_IF(colon == std::string::npos, "--ccList item '" << item << "' is not NAME:COUNT");
            const int count = std::stoi(item.substr(colon + 1));
            NS_ABORT_MSG_IF(count < 1, "--ccList item '" << item << "': COUNT must be >= 1");
            flowCc.insert(flowCc.end(), count, item.substr(0, colon));
        }
        NS_ABORT_MSG_IF(flows != 1 && flows != flowCc.size(),
                        "--flows=" << flows << " but --ccList gives " << flowCc.size() << " flows");
        flows = flowCc.size();
        cc = ccList;
    }
    else
    {
        flowCc.assign(std::max<uint32_t>(flows, 1), cc);
    }
    NS_ABORT_MSG_IF(flows < 1, "--flows must be >= 1");
    NS_ABORT_MSG_IF(rateMbps <= 0 || delayMs < 0 || duration <= 0, "bad rate/delay/duration");
    NS_ABORT_MSG_IF(recovery != "prr" && recovery != "classic", "--recovery must be prr|classic");
    NS_ABORT_MSG_IF(queue != "droptail" && queue != "pie", "--queue must be droptail|pie");
    NS_ABORT_MSG_IF(queue == "pie" && ecnThresholdPkts > 0, "--queue=pie and --ecnThresholdPkts exclude each other");

    std::ofstream traceStream;
    if (!traceFile.empty())
    {
        traceStream.open(traceFile);
        NS_ABORT_MSG_UNLESS(traceStream, "cannot open --traceFile " << traceFile);
        g_trace = &traceStream;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // ---- derived sizes -----------------------------------------------------
    const double rateBps = rateMbps * 1e6;
    const double bdpBytes = rateBps * 2.0 * delayMs / 1000.0 / 8.0;
    const double bdpPkts = bdpBytes / 1500.0;
    uint32_t queuePkts = bufferPkts > 0
                             ? bufferPkts
                             : static_cast<uint32_t>(std::llround(bufferBdp * bdpPkts));
    queuePkts = std::max<uint32_t>(queuePkts, 2);
    if (queue == "pie")
    {
        queuePkts = std::max<uint32_t>(queuePktsPie, 2);
    }
    // Socket buffers: 4x (BDP + bottleneck buffer), at least 1 MB, so that they
    // never limit cwnd (a single flow's cwnd tops out near BDP + buffer).
    const uint32_t sockBuf = static_cast<uint32_t>(
        std::min(std::max(4.0 * (bdpBytes + queuePkts * 1500.0), 1.0e6), 2.0e9));
    // Queues that must never drop (access links, reverse bottleneck direction):
    // bigger than all the data every sender could ever have in flight.
    const uint32_t hugeQueuePkts = static_cast<uint32_t>(
        std::min<uint64_t>(std::max<uint64_t>(100000, uint64_t(sockBuf) / 1448 * flows), 1u << 30));

    // ---- congestion control selection ------------------------------------
    // Selected purely by TypeId name.  No IsChildOf(TcpCongestionOps) check:
    // in 3.37 ns3::TcpCubic's TypeId declares TcpSocketBase as its parent, so
    // such a check would wrongly reject it (the C++ class is still a
    // TcpCongestionOps, which is all TcpL4Protocol needs).
    // Accept the short names case-insensitively (and a full "ns3::Tcp..." name as is).
    static const char* const kKnownCc[] = {
        "NewReno", "Cubic", "Bic", "Vegas", "WestwoodPlus", "Westwood", "Bbr", "Hybla", "Veno",
        "Illinois", "Htcp", "HighSpeed", "Scalable", "Yeah", "Lp", "Ledbat", "Dctcp", "LinuxReno"};
    auto lower = [](std::string v) {
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
        return v;
    };
    // With --ccList each sender node's TcpL4Protocol gets its flow's TypeId
    // (its SocketType attribute, set below); attributes such as Westwood's
    // ProtocolType and BBR's pacing stay process-wide defaults, so a list may
    // not mix Westwood with WestwoodPlus, nor Bbr with anything else.
    std::vector<TypeId> flowTid(flows);
    std::map<std::string, uint32_t> perCcFlows;
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::string& name = flowCc[i];
        for (const char* known : kKnownCc)
        {
            if (lower(name) == lower(known))
            {
                name = known;
            }
        }
        std::string typeName = name.rfind("ns3::", 0) == 0 ? name : "ns3::Tcp" + name;
        if (name == "WestwoodPlus")
        {
            typeName = "ns3::TcpWestwood";
            // Attribute "ProtocolType", enum TcpWestwood::ProtocolType {WESTWOOD, WESTWOODPLUS}.
            Config::SetDefault("ns3::TcpWestwood::ProtocolType", EnumValue(TcpWestwood::WESTWOODPLUS));
        }
        else if (name == "Westwood")
        {
            Config::SetDefault("ns3::TcpWestwood::ProtocolType", EnumValue(TcpWestwood::WESTWOOD));
        }
        NS_ABORT_MSG_UNLESS(TypeId::LookupByNameFailSafe(typeName, &flowTid[i]),
                            "unknown congestion control '" << name << "' (no TypeId " << typeName
                                                           << ")");
        perCcFlows[name]++;
    }
    NS_ABORT_MSG_IF(perCcFlows.count("Westwood") && perCcFlows.count("WestwoodPlus"),
                    "--ccList cannot mix Westwood and WestwoodPlus (one ProtocolType per run)");
    NS_ABORT_MSG_IF(perCcFlows.count("Bbr") && perCcFlows.size() > 1,
                    "--ccList cannot mix Bbr with other algorithms (pacing is set per run)");
    if (ccList.empty())
    {
        cc = flowCc[0];
    }
    const TypeId ccTid = flowTid[0];
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccTid));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName(recovery == "prr" ? "ns3::TcpPrrRecovery"
                                                                          : "ns3::TcpClassicRecovery")));
    if (perCcFlows.count("Bbr"))
    {
        // BBR is a paced algorithm (Linux paces it internally); ns-3 needs
        // pacing switched on in the socket state.
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }

    // ---- Linux-like TCP defaults -----------------------------------------
    // (The parameter-independent ones are set before cmd.Parse(), see top of main.)
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sockBuf)); // ns-3: 128 KiB
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(sockBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(static_cast<int64_t>(minRtoMs * 1000))));
    if (ecnThresholdPkts > 0)
    {
        // Classic ECN for every algorithm (DCTCP switches itself to its own
        // ECN mode in TcpDctcp::Init regardless).
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    }

    // ---- topology --------------------------------------------------------
    NodeContainer senders;
    NodeContainer receivers;
    NodeContainer routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);

    InternetStackHelper stack;
    stack.InstallAll();

    std::ostringstream accessRate;
    accessRate << static_cast<uint64_t>(rateBps * 10.0) << "bps";
    std::ostringstream bottleneckRate;
    bottleneckRate << static_cast<uint64_t>(rateBps) << "bps";

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate.str()));
    access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                    QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, hugeQueuePkts)));

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate.str()));
    bottleneck.SetChannelAttribute(
        "Delay", TimeValue(NanoSeconds(static_cast<int64_t>(std::llround(delayMs * 1e6)))));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, hugeQueuePkts)));

    NetDeviceContainer allDevices;
    NetDeviceContainer bnDevs = bottleneck.Install(routers.Get(0), routers.Get(1));
    allDevices.Add(bnDevs);
    std::vector<NetDeviceContainer> leftDevs(flows);
    std::vector<NetDeviceContainer> rightDevs(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        leftDevs[i] = access.Install(senders.Get(i), routers.Get(0));
        rightDevs[i] = access.Install(routers.Get(1), receivers.Get(i));
        allDevices.Add(leftDevs[i]);
        allDevices.Add(rightDevs[i]);
    }

    // One /30 per link.
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    addr.Assign(bnDevs);
    addr.NewNetwork();
    std::vector<Ipv4InterfaceContainer> rightIfs(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        addr.Assign(leftDevs[i]);
        addr.NewNetwork();
        rightIfs[i] = addr.Assign(rightDevs[i]);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Ipv4AddressHelper::Assign() has just put the default fq_codel queue disc
    // on every device.  Remove it everywhere: device queues only.
    TrafficControlHelper tch;
    tch.Uninstall(allDevices);

    Ptr<PointToPointNetDevice> bnDev = DynamicCast<PointToPointNetDevice>(bnDevs.Get(0));
    Ptr<Queue<Packet>> bnQueue = bnDev->GetQueue();
    Ptr<QueueDisc> redQdisc;
    if (queue == "pie")
    {
        // ccbench's PIE = Linux sch_pie defaults; see the header comment for
        // the attributes set and what still differs.
        TrafficControlHelper pie;
        pie.SetRootQueueDisc("ns3::PieQueueDisc",
                             "QueueDelayReference", TimeValue(MilliSeconds(15)),
                             "Tupdate", TimeValue(MilliSeconds(15)),
                             "A", DoubleValue(0.125),
                             "B", DoubleValue(1.25),
                             "MaxBurstAllowance", TimeValue(MilliSeconds(150)),
                             "UseDerandomization", BooleanValue(true),
                             "UseDequeueRateEstimator", BooleanValue(false),
                             "UseCapDropAdjustment", BooleanValue(true),
                             "UseEcn", BooleanValue(false),
                             "MeanPktSize", UintegerValue(1500),
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePkts)));
        redQdisc = pie.Install(bnDevs.Get(0)).Get(0);
        bnQueue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1));
        redQdisc->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountQdiscItem, &g_bottleneckDrops));
        redQdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLength));
        redQdisc->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    }
    else if (ecnThresholdPkts > 0)
    {
        // DCTCP-style step marking with RED: QW=1 makes the "average" the
        // instantaneous queue length; MinTh=MaxTh=K with Gentle off makes every
        // packet arriving to a queue of >= K packets a "forced" drop, which
        // with UseEcn and without UseHardDrop becomes a CE mark for ECT packets
        // (non-ECT packets are dropped).  MaxSize is the hard buffer limit.
        TrafficControlHelper red;
        red.SetRootQueueDisc("ns3::RedQueueDisc",
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "Gentle", BooleanValue(false),
                             "QW", DoubleValue(1.0),
                             "MinTh", DoubleValue(ecnThresholdPkts),
                             "MaxTh", DoubleValue(ecnThresholdPkts),
                             "MeanPktSize", UintegerValue(1500),
                             "LinkBandwidth", DataRateValue(DataRate(bottleneckRate.str())),
                             "LinkDelay", TimeValue(NanoSeconds(static_cast<int64_t>(delayMs * 1e6))),
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePkts)));
        redQdisc = red.Install(bnDevs.Get(0)).Get(0);
        bnQueue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1));
        redQdisc->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountQdiscItem, &g_bottleneckDrops));
        redQdisc->TraceConnectWithoutContext("Mark", MakeBoundCallback(&CountQdiscMark, &g_bottleneckMarks));
        redQdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLength));
    }
    else
    {
        bnQueue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queuePkts));
        bnQueue->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLength));
    }

    // Bottleneck counters.  Packets can be refused at the bottleneck in two
    // places: the DropTailQueue itself, or -- because the p2p device does flow
    // control and stops its queue when full -- the traffic-control layer of R1
    // ("TcDrop").  Both are drop-tail drops of the same queue.
    bnDev->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(&CountPacket, &g_bottleneckTxPackets));
    bnQueue->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountPacket, &g_bottleneckDrops));
    routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeBoundCallback(&CountPacket, &g_bottleneckDrops));
    if (lossRate > 0)
    {
        // On R2's end of the bottleneck: only data crosses R1 -> R2.  Stream 0
        // of this run's (--seed) substreams; nothing else here draws from a
        // fixed stream.
        Ptr<DataLossModel> loss = CreateObject<DataLossModel>();
        loss->Configure(lossRate, 0);
        bnDevs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }
    // Everything else must be loss-free; count to verify.
    for (uint32_t i = 0; i < allDevices.GetN(); ++i)
    {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(allDevices.Get(i));
        if (d == bnDev)
        {
            continue;
        }
        d->GetQueue()->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountPacket, &g_otherDrops));
    }
    NodeContainer allNodes = NodeContainer::GetGlobal(); // (a copy: GetGlobal() returns by value)
    for (uint32_t i = 0; i < allNodes.GetN(); ++i)
    {
        if (allNodes.Get(i) != routers.Get(0))
        {
            allNodes.Get(i)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                "TcDrop", MakeBoundCallback(&CountPacket, &g_otherDrops));
        }
    }

    // Report what the bottleneck really is.
    {
        Ptr<TrafficControlLayer> tc = routers.Get(0)->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> root = tc->GetRootQueueDiscOnDevice(bnDev);
        std::cerr << "[dumbbell] cc=" << cc << " (" << ccTid.GetName() << ") flows=" << flows
                  << " bottleneck=" << bottleneckRate.str() << " delay=" << delayMs << "ms"
                  << " access=" << accessRate.str() << "/0ms"
                  << " BDP=" << bdpPkts << "pkts" << std::endl;
        std::cerr << "[dumbbell] bottleneck device queue: "
                  << bnQueue->GetInstanceTypeId().GetName()
                  << " MaxSize=" << bnQueue->GetMaxSize()
                  << "; root queue disc: " << (root ? root->GetInstanceTypeId().GetName() : "none")
                  << (queue == "pie" ? " (PIE, limit " + std::to_string(queuePkts) + "p)" : std::string())
                  << (redQdisc && queue != "pie" ? " (RED step marker K=" + std::to_string(ecnThresholdPkts) +
                                     " MaxSize=" + std::to_string(queuePkts) + "p)"
                               : std::string())
                  << "; socket buffers=" << sockBuf << "B" << std::endl;
        uint32_t remaining = 0;
        for (uint32_t i = 0; i < allDevices.GetN(); ++i)
        {
            Ptr<NetDevice> d = allDevices.Get(i);
            if (d->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(d) &&
                d != bnDevs.Get(0))
            {
                remaining++;
            }
        }
        NS_ABORT_MSG_IF(remaining > 0, remaining << " devices still have a queue disc");
    }

    // ---- applications ------------------------------------------------------
    g_flows.assign(flows, FlowStats());
    const uint16_t port = 5001;
    std::vector<Ptr<PacketSink>> sinks(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        g_nodeToFlow[senders.Get(i)->GetId()] = i;
        // Sender-side sockets use the recording RTT estimator (see above).
        senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute(
            "RttEstimatorType", TypeIdValue(RecordingRttEstimator::GetTypeId()));
        senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute("SocketType", TypeIdValue(flowTid[i]));

        double startS = staggerMs > 0 ? (staggerMs / 1000.0) * i / flows : 0.0;

        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0));
        sinkApp.Stop(Seconds(duration));
        sinks[i] = DynamicCast<PacketSink>(sinkApp.Get(0));

        if (noTcp)
        {
            continue;
        }
        BulkSendHelper src("ns3::TcpSocketFactory",
                           InetSocketAddress(rightIfs[i].GetAddress(1), port));
        src.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
        src.SetAttribute("SendSize", UintegerValue(1448));
        ApplicationContainer srcApp = src.Install(senders.Get(i));
        srcApp.Start(Seconds(startS));
        srcApp.Stop(Seconds(duration));
        Simulator::Schedule(Seconds(startS) + NanoSeconds(1), &HookSenderSocket,
                            DynamicCast<BulkSendApplication>(srcApp.Get(0)), i);
    }

    // Unresponsive load (--udpMbps): one constant-bit-rate UDP source from
    // sender 0 to receiver 0, 1500-byte IP datagrams (OnOffApplication's rate
    // counts the 1472 payload bytes, so it is scaled to give udpMbps of IP
    // packets, as ccbench's [[udp]] rate counts them).
    Ptr<PacketSink> udpSink;
    if (udpMbps > 0)
    {
        const uint16_t udpPort = 9;
        PacketSinkHelper udpSinkHelper("ns3::UdpSocketFactory",
                                       InetSocketAddress(Ipv4Address::GetAny(), udpPort));
        ApplicationContainer us = udpSinkHelper.Install(receivers.Get(0));
        us.Start(Seconds(0));
        us.Stop(Seconds(duration));
        udpSink = DynamicCast<PacketSink>(us.Get(0));
        OnOffHelper cbr("ns3::UdpSocketFactory", InetSocketAddress(rightIfs[0].GetAddress(1), udpPort));
        cbr.SetConstantRate(DataRate(static_cast<uint64_t>(udpMbps * 1e6 * 1472.0 / 1500.0)), 1472);
        ApplicationContainer ua = cbr.Install(senders.Get(0));
        ua.Start(Seconds(0));
        ua.Stop(Seconds(duration));
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(t1 - t0).count();
    g_queue.Advance(duration);

    // ---- results ---------------------------------------------------------
    double aggGoodput = 0.0;
    std::vector<double> perFlow(flows);
    uint64_t retx = 0;
    uint64_t dataSegs = 0;
    uint64_t recov = 0;
    uint64_t rtos = 0;
    double rttSum = 0.0;
    double rttMin = 1e300;
    uint64_t rttN = 0;
    std::vector<double> perFlowRtt(flows);
    std::vector<double> perFlowRetx(flows);
    std::vector<double> perFlowRto(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        perFlow[i] = sinks[i]->GetTotalRx() * 8.0 / duration;
        aggGoodput += perFlow[i];
        retx += g_flows[i].retxSegments;
        dataSegs += g_flows[i].dataSegments;
        recov += g_flows[i].recoveryEvents;
        rtos += g_flows[i].lossEvents;
        rttSum += g_flows[i].rttSumS;
        rttN += g_flows[i].rttCount;
        rttMin = std::min(rttMin, g_flows[i].rttMinS);
        perFlowRtt[i] = g_flows[i].rttCount ? 1000.0 * g_flows[i].rttSumS / g_flows[i].rttCount : NAN;
        perFlowRetx[i] = g_flows[i].retxSegments;
        perFlowRto[i] = g_flows[i].lossEvents;
    }
    if (g_otherDrops > 0)
    {
        std::cerr << "[dumbbell] WARNING: " << g_otherDrops
                  << " packets dropped outside the bottleneck" << std::endl;
    }
    // Best possible goodput: 1448 payload bytes per 1500-byte IP packet, plus
    // the 2-byte PPP header ns-3 adds on the wire.
    const double ceiling = rateBps * 1448.0 / 1502.0;

    // Queueing delay (--queue=pie): per packet, and per 10 ms bin weighted by
    // its packets (ccbench's link_series sojourn_ms).
    double sojournMean = NAN;
    std::vector<std::pair<double, double>> perPacket;
    std::vector<std::pair<double, double>> perBin;
    if (!g_sojournMs.empty())
    {
        double sum = 0.0;
        for (double ms : g_sojournMs)
        {
            sum += ms;
            perPacket.emplace_back(ms, 1.0);
        }
        sojournMean = sum / g_sojournMs.size();
        for (size_t i = 0; i < g_binSumMs.size(); ++i)
        {
            if (g_binCount[i] > 0)
            {
                perBin.emplace_back(g_binSumMs[i] / g_binCount[i], g_binCount[i]);
            }
        }
    }

    auto list = [](const std::vector<double>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
        {
            s += (i ? ", " : "") + Num(v[i]);
        }
        return s + "]";
    };
    auto names = [](const std::vector<std::string>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
        {
            s += (i ? ", \"" : "\"") + v[i] + "\"";
        }
        return s + "]";
    };

    std::cout << "{"
              << "\"cc\": \"" << cc << "\", "
              << "\"flows\": " << flows << ", "
              << "\"duration_s\": " << Num(duration) << ", "
              << "\"aggregate_goodput_bps\": " << Num(aggGoodput) << ", "
              << "\"per_flow_goodput_bps\": " << list(perFlow) << ", "
              << "\"retransmitted_segments\": " << retx << ", "
              << "\"mean_rtt_ms\": " << Num(rttN ? 1000.0 * rttSum / rttN : NAN) << ", "
              << "\"bottleneck_packets\": " << g_bottleneckTxPackets << ", "
              << "\"wall_seconds\": " << Num(wall) << ", "
              // extras, useful for cross-checking
              << "\"rate_mbps\": " << Num(rateMbps) << ", "
              << "\"delay_ms\": " << Num(delayMs) << ", "
              << "\"buffer_pkts\": " << queuePkts << ", "
              << "\"bdp_pkts\": " << Num(bdpPkts) << ", "
              << "\"goodput_ceiling_bps\": " << Num(ceiling) << ", "
              << "\"data_segments_sent\": " << dataSegs << ", "
              << "\"bottleneck_drops\": " << g_bottleneckDrops << ", "
              << "\"ecn_marks\": " << g_bottleneckMarks << ", "
              << "\"bottleneck_max_queue_pkts\": " << g_queue.max << ", "
              << "\"bottleneck_mean_queue_pkts\": " << Num(g_queue.areaPktS / duration) << ", "
              << "\"fast_recovery_events\": " << recov << ", "
              << "\"rto_events\": " << rtos << ", "
              << "\"rtt_samples\": " << rttN << ", "
              << "\"min_rtt_ms\": " << Num(rttN ? 1000.0 * rttMin : NAN) << ", "
              << "\"per_flow_mean_rtt_ms\": " << list(perFlowRtt) << ", "
              << "\"seed\": " << seed << ", "
              << "\"min_rto_ms\": " << Num(minRtoMs) << ", "
              << "\"sack\": " << (sack ? "true" : "false") << ", "
              << "\"recovery\": \"" << recovery << "\", "
              << "\"ecn_threshold_pkts\": " << ecnThresholdPkts << ", "
              << "\"udp_mbps\": " << Num(udpMbps) << ", "
              << "\"udp_goodput_bps\": " << Num(udpSink ? udpSink->GetTotalRx() * 8.0 / duration : 0.0) << ", "
              << "\"queue\": \"" << queue << "\", "
              << "\"steady_from_s\": " << Num(g_steadyFromS) << ", "
              << "\"queue_delay_packets\": " << g_sojournMs.size() << ", "
              << "\"queue_delay_mean_ms\": " << Num(sojournMean) << ", "
              << "\"queue_delay_p50_ms\": " << Num(WeightedQuantile(perPacket, 0.5)) << ", "
              << "\"queue_delay_p95_ms\": " << Num(WeightedQuantile(perPacket, 0.95)) << ", "
              << "\"queue_delay_bin10ms_p50_ms\": " << Num(WeightedQuantile(perBin, 0.5)) << ", "
              << "\"queue_delay_bin10ms_p95_ms\": " << Num(WeightedQuantile(perBin, 0.95)) << ", "
              << "\"loss_rate\": " << Num(lossRate) << ", "
              << "\"random_losses\": " << g_randomLosses << ", "
              << "\"per_flow_cc\": " << names(flowCc) << ", "
              << "\"per_flow_retransmitted_segments\": " << list(perFlowRetx) << ", "
              << "\"per_flow_rto_events\": " << list(perFlowRto) << ", "
              << "\"ns3_version\": \"3.37\""
              << "}" << std::endl;

    Simulator::Destroy();
    return 0;
}
