import ConferCongestion
import ConferMedia
import ConferRTP

/// A tiny bottleneck model for the estimator tests (deliberately independent of the real
/// network simulator): a sender that streams 1200-byte packets at the estimator's target
/// (plus any probe bursts it asks for) through a FIFO drop-tail queue served at a
/// capacity C, a fixed one-way delay each way, optional random loss, and a receiver that
/// sends transport-cc feedback every 100 ms — or, in REMB mode, runs a
/// ``RemoteBitrateEstimator`` on abs-send-time and sends REMB when it says so (checked
/// every 100 ms). Everything runs in virtual time.
struct BottleneckLink {
    struct Settings {
        /// Capacity as a function of time (a step schedule: the last entry at or before t).
        var capacity: [(from: Timestamp, rate: DataRate)]
        /// Drop-tail queue limit in bytes.
        var queueLimit = 64_000
        var oneWayDelay = TimeDelta.milliseconds(25)
        /// Deviation of a normal variation of the forward delay (cut at ±3 deviations, never
        /// below zero), order kept: a late packet holds back the ones behind it, as in netsim.
        var jitter = TimeDelta.zero
        var randomLoss = 0.0
        var feedbackInterval = TimeDelta.milliseconds(100)
        var packetSize = 1200
        var firstSequenceNumber: UInt16 = 0
        /// Added to every arrival time the receiver reports (its clock is not ours).
        var receiverClockOffset = TimeDelta.seconds(1000)
        var seed: UInt64 = 1
        /// Receive-side estimation with REMB instead of transport-cc.
        var remb = false

        init(capacity: DataRate) { self.capacity = [(.zero, capacity)] }
        init(capacity: [(from: Timestamp, rate: DataRate)]) { self.capacity = capacity }
    }

    /// What happened to one sent packet.
    struct SentPacket {
        var sendTime: Timestamp
        var dropped: Bool
        /// Time spent queued at the bottleneck (waiting plus serialization), if not dropped.
        var queueDelay: TimeDelta?
    }

    var settings: Settings
    var estimator: SendSideBandwidthEstimator
    private(set) var sent: [SentPacket] = []
    /// The target after each feedback delivery.
    private(set) var targets: [(time: Timestamp, rate: DataRate)] = []
    private(set) var now = Timestamp.zero

    private var random: SeededRandom
    private var nextSequence: Int64
    private var nextMediaSend = Timestamp.zero
    private var probeSends: [(time: Timestamp, cluster: Int)] = []
    private var linkFreeAt = Timestamp.zero
    private var queue: [(departure: Timestamp, size: Int)] = []
    private var queuedBytes = 0
    private var inFlight: [(arrival: Timestamp, sequence: Int64, sendTime: Timestamp)] = []
    private var lastArrival = Timestamp.zero
    private(set) var remote = RemoteBitrateEstimator()
    /// REMB values the receiver sent, with their send times.
    private(set) var rembs: [(time: Timestamp, rate: DataRate)] = []
    private var received: [Int64: Timestamp] = [:]
    private var nextExpected: Int64
    private var highestReceived: Int64 = -1
    private var nextFeedback: Timestamp
    private enum Message {
        case transportFeedback(RTCPTransportFeedback)
        case remb(DataRate)
    }
    private var deliveries: [(time: Timestamp, message: Message)] = []
    private var feedbackCount: UInt8 = 0

    init(settings: Settings, estimator: SendSideBandwidthEstimator) {
        self.settings = settings
        self.estimator = estimator
        random = SeededRandom(seed: settings.seed)
        nextSequence = Int64(settings.firstSequenceNumber)
        nextExpected = nextSequence
        nextFeedback = .zero + settings.feedbackInterval
    }

    func capacity(at time: Timestamp) -> DataRate {
        settings.capacity.last { $0.from <= time }?.rate ?? settings.capacity[0].rate
    }

    /// Runs until `end`; a later call carries on from there.
    mutating func run(until end: Timestamp) {
        while true {
            var next = nextMediaSend
            var kind = 0
            if let probe = probeSends.first, probe.time < next { next = probe.time; kind = 1 }
            if nextFeedback < next { next = nextFeedback; kind = 2 }
            if let delivery = deliveries.first, delivery.time < next { next = delivery.time; kind = 3 }
            guard next <= end else { break }
            now = next
            switch kind {
            case 0:
                pollProbe()
                send(probeCluster: nil)
                let rate = estimator.targetBitrate
                nextMediaSend = now + (rate.duration(ofBytes: settings.packetSize) ?? .seconds(1))
            case 1:
                let probe = probeSends.removeFirst()
                send(probeCluster: probe.cluster)
            case 2:
                generateFeedback()
                nextFeedback = now + settings.feedbackInterval
            default:
                switch deliveries.removeFirst().message {
                case .transportFeedback(let message): estimator.onTransportFeedback(message, at: now)
                case .remb(let rate): estimator.onREMB(bitrate: rate, at: now)
                }
                targets.append((now, estimator.targetBitrate))
                pollProbe()
            }
        }
        now = end
    }

    private mutating func pollProbe() {
        guard let cluster = estimator.nextProbe(at: now) else { return }
        let count = max(cluster.minimumPackets, (cluster.minimumBytes + settings.packetSize - 1) / settings.packetSize)
        let spacing = cluster.bitrate.duration(ofBytes: settings.packetSize) ?? .milliseconds(1)
        let start = probeSends.last.map { max($0.time, now) } ?? now
        for index in 0 ..< count {
            probeSends.append((start + spacing * Int64(index), cluster.id))
        }
    }

    private mutating func send(probeCluster: Int?) {
        let sequence = nextSequence
        nextSequence += 1
        let size = settings.packetSize
        estimator.onPacketSent(transportSequenceNumber: UInt16(truncatingIfNeeded: sequence), size: size, at: now,
                               probeClusterID: probeCluster)
        if settings.randomLoss > 0, random.nextUnit() < settings.randomLoss {
            sent.append(SentPacket(sendTime: now, dropped: true, queueDelay: nil))
            return
        }
        while let head = queue.first, head.departure <= now {
            queuedBytes -= head.size
            queue.removeFirst()
        }
        if queuedBytes + size > settings.queueLimit {
            sent.append(SentPacket(sendTime: now, dropped: true, queueDelay: nil))
            return
        }
        let start = max(now, linkFreeAt)
        let departure = start + (capacity(at: start).duration(ofBytes: size) ?? .zero)
        linkFreeAt = departure
        queue.append((departure, size))
        queuedBytes += size
        var arrival = departure + settings.oneWayDelay
        if settings.jitter > .zero {
            let deviation = Double(settings.jitter.microseconds)
            let offset = min(max(random.nextGaussian(deviation: deviation), -3 * deviation), 3 * deviation)
            arrival = max(departure, arrival + TimeDelta(microseconds: Int64(offset)), lastArrival)
            lastArrival = arrival
        }
        inFlight.append((arrival, sequence, now))
        sent.append(SentPacket(sendTime: now, dropped: false, queueDelay: departure - now))
    }

    private mutating func generateFeedback() {
        while let head = inFlight.first, head.arrival <= now {
            inFlight.removeFirst()
            if settings.remb {
                remote.onPacketReceived(sendTime: RTPAbsoluteSendTime(head.sendTime), size: settings.packetSize,
                                        at: head.arrival + settings.receiverClockOffset)
                continue
            }
            received[head.sequence] = head.arrival + settings.receiverClockOffset
            highestReceived = max(highestReceived, head.sequence)
        }
        if settings.remb, let rate = remote.rembToSend(at: now + settings.receiverClockOffset) {
            rembs.append((now, rate))
            deliveries.append((now + settings.oneWayDelay, .remb(rate)))
        }
        guard highestReceived >= nextExpected else { return }
        var results: [RTCPTransportFeedback.PacketResult] = []
        for sequence in nextExpected ... highestReceived {
            results.append(.init(sequenceNumber: UInt16(truncatingIfNeeded: sequence), arrival: received.removeValue(forKey: sequence)))
        }
        nextExpected = highestReceived + 1
        let message = try! RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: feedbackCount, packets: results)
        feedbackCount &+= 1
        deliveries.append((now + settings.oneWayDelay, .transportFeedback(message)))
    }

    // MARK: Measurements

    /// Targets reported at or after `from` and before `to`.
    func targets(from: Double, to: Double) -> [DataRate] {
        targets.filter { $0.time >= .seconds(from) && $0.time < .seconds(to) }.map(\.rate)
    }

    /// The target at the last feedback before `time`.
    func target(at time: Double) -> DataRate {
        targets.last { $0.time <= .seconds(time) }?.rate ?? estimator.configuration.startBitrate
    }

    /// The fraction of packets sent in [from, to) that the queue dropped.
    func dropFraction(from: Double, to: Double) -> Double {
        let window = sent.filter { $0.sendTime >= .seconds(from) && $0.sendTime < .seconds(to) }
        guard !window.isEmpty else { return 0 }
        return Double(window.filter(\.dropped).count) / Double(window.count)
    }

    /// Queueing delays (ms) of packets sent in [from, to) that got through.
    func queueDelays(from: Double, to: Double) -> [Double] {
        sent.filter { $0.sendTime >= .seconds(from) && $0.sendTime < .seconds(to) }
            .compactMap { $0.queueDelay.map { Double($0.microseconds) / 1000 } }
    }

    /// Bits sent per second over [from, to).
    func sendRate(from: Double, to: Double) -> DataRate {
        let count = sent.filter { $0.sendTime >= .seconds(from) && $0.sendTime < .seconds(to) }.count
        return .bitsPerSecond(Int64(Double(count * settings.packetSize * 8) / (to - from)))
    }
}
