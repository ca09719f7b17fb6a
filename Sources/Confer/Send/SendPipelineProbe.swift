import ConferMedia
import ConferCongestion

/// The probe burst being sent: which cluster, how much of it has gone, and when the next
/// packet is due so the burst leaves at the cluster's rate.
struct SendPipelineProbe {
    private(set) var cluster: ProbeCluster?
    private var packetsSent = 0
    private var bytesSent = 0
    /// When the next packet of the cluster is due.
    private(set) var nextSendTime: Timestamp?

    /// Starts sending `cluster` at `now`.
    mutating func start(_ cluster: ProbeCluster, at now: Timestamp) {
        self.cluster = cluster
        packetsSent = 0
        bytesSent = 0
        nextSendTime = now
    }

    /// How big the next packet should be: the bytes still wanted spread over the packets
    /// still wanted, within what one padding packet holds.
    func nextPacketSize(maximum: Int) -> Int {
        guard let cluster else { return 0 }
        let packetsLeft = max(cluster.minimumPackets - packetsSent, 1)
        let bytesLeft = max(cluster.minimumBytes - bytesSent, 1)
        return min(max((bytesLeft + packetsLeft - 1) / packetsLeft, 50), maximum)
    }

    /// Accounts for a packet of `size` bytes sent at `now`; ends the cluster once it has
    /// its packets and bytes, otherwise schedules the next packet at the cluster's rate.
    mutating func sent(_ size: Int, at now: Timestamp) {
        guard let cluster else { return }
        packetsSent += 1
        bytesSent += size
        if size <= 0 || (packetsSent >= cluster.minimumPackets && bytesSent >= cluster.minimumBytes) {
            self.cluster = nil
            nextSendTime = nil
            return
        }
        let gap = cluster.bitrate.duration(ofBytes: size) ?? .milliseconds(1)
        nextSendTime = now + max(gap, TimeDelta(microseconds: 1))
    }
}
