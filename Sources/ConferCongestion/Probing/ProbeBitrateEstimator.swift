import ConferMedia

/// Measures the path from the feedback of probe clusters (libwebrtc's
/// `ProbeBitrateEstimator`).
///
/// Once 80 % of a cluster's packets and bytes are acknowledged, the send rate is its
/// bytes (less the last packet's) over the send span and the receive rate its bytes (less
/// the first packet's) over the receive span. The result is the smaller of the two; a
/// receive rate below 90 % of the send rate means the burst hit the bottleneck, so the
/// result is 95 % of the receive rate, just under capacity — unless the receive span
/// exceeds the send span by no more than the path's delay variation, which jitter alone
/// explains: then the path carried the burst and the result is the send rate. (Bursts
/// are sized to last many times that variation, see ``ProbeController``, so on a clean
/// path the allowance is nil and on a jittery one a bottleneck still shows.) Clusters whose spans are not
/// positive or longer than a second, or that received over twice as fast as they were
/// sent, say nothing.
struct ProbeBitrateEstimator: Sendable {
    static let minimumReceivedRatio = 0.8
    static let maximumValidRatio = 2.0
    static let minimumRatioForUnsaturatedLink = 0.9
    static let targetUtilization = 0.95
    static let maximumInterval = TimeDelta.seconds(1)
    static let clusterHistory = TimeDelta.seconds(1)

    private struct Aggregate {
        var cluster: ProbeCluster
        var issued: Timestamp
        var firstSend = Timestamp(microseconds: .max)
        var lastSend = Timestamp(microseconds: .min)
        var firstReceive = Timestamp(microseconds: .max)
        var lastReceive = Timestamp(microseconds: .min)
        var lastSendSize = 0
        var firstReceiveSize = 0
        var totalSize = 0
        var packets = 0
    }

    /// Clusters recently issued; a small fixed ring, the oldest overwritten first.
    private var clusters: [Aggregate?] = Array(repeating: nil, count: 8)
    private var nextSlot = 0
    private(set) var lastResult: DataRate?

    var storageFingerprint: [Int] { fingerprint(clusters) }

    /// Remembers `cluster`, issued at `now`, so its feedback can be measured.
    mutating func register(_ cluster: ProbeCluster, at now: Timestamp) {
        clusters[nextSlot] = Aggregate(cluster: cluster, issued: now)
        nextSlot = (nextSlot + 1) % clusters.count
    }

    /// Adds an acknowledged probe packet; returns the cluster's measured rate once it has
    /// enough feedback.
    mutating func add(_ packet: PacketFeedback, delayVariation: TimeDelta = .zero) -> DataRate? {
        guard let id = packet.probeClusterID,
              let slot = clusters.firstIndex(where: { $0?.cluster.id == id }), var aggregate = clusters[slot]
        else { return nil }
        if aggregate.lastReceive != Timestamp(microseconds: .min),
           packet.receiveTime - aggregate.lastReceive > Self.clusterHistory {
            clusters[slot] = nil
            return nil
        }
        if packet.sendTime < aggregate.firstSend { aggregate.firstSend = packet.sendTime }
        if packet.sendTime > aggregate.lastSend {
            aggregate.lastSend = packet.sendTime
            aggregate.lastSendSize = packet.size
        }
        if packet.receiveTime < aggregate.firstReceive {
            aggregate.firstReceive = packet.receiveTime
            aggregate.firstReceiveSize = packet.size
        }
        if packet.receiveTime > aggregate.lastReceive { aggregate.lastReceive = packet.receiveTime }
        aggregate.totalSize += packet.size
        aggregate.packets += 1
        clusters[slot] = aggregate

        let cluster = aggregate.cluster
        guard Double(aggregate.packets) >= Double(cluster.minimumPackets) * Self.minimumReceivedRatio,
              Double(aggregate.totalSize) >= Double(cluster.minimumBytes) * Self.minimumReceivedRatio
        else { return nil }
        let sendInterval = aggregate.lastSend - aggregate.firstSend
        let receiveInterval = aggregate.lastReceive - aggregate.firstReceive
        guard sendInterval > .zero, sendInterval <= Self.maximumInterval,
              receiveInterval > .zero, receiveInterval <= Self.maximumInterval,
              // The interval leaves out the time to send the last packet and to receive
              // the first, so their sizes are left out of the rates too.
              let sendRate = DataRate(bytes: aggregate.totalSize - aggregate.lastSendSize, over: sendInterval),
              let receiveRate = DataRate(bytes: aggregate.totalSize - aggregate.firstReceiveSize, over: receiveInterval),
              sendRate > .zero,
              Double(receiveRate.bitsPerSecond) / Double(sendRate.bitsPerSecond) <= Self.maximumValidRatio
        else { return nil }
        var result = min(sendRate, receiveRate)
        if receiveInterval <= sendInterval + delayVariation {
            result = sendRate
        } else if Double(receiveRate.bitsPerSecond) < Self.minimumRatioForUnsaturatedLink * Double(sendRate.bitsPerSecond) {
            result = receiveRate * Self.targetUtilization
        }
        lastResult = result
        return result
    }
}
