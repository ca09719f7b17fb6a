import ConferMedia
package import ConferRTP
package import ConferJitter

/// The audio half of a ``ReceivePipeline``: the jitter buffer (which decodes, conceals and
/// time-stretches) and the reception statistics for receiver reports.
package final class ReceivePipelineAudioStream {
    let configuration: ReceivePipelineConfiguration.Audio
    package private(set) var jitterBuffer: AudioJitterBuffer
    /// The SSRC heard last.
    package private(set) var ssrc: UInt32?
    /// When `ssrc` was taken up.
    private var ssrcSince: Timestamp?
    /// Media packets given to the jitter buffer (duplicates included, retransmissions not).
    package private(set) var packetsInserted = 0
    /// Payload bytes of those packets.
    package private(set) var payloadBytesInserted = 0
    /// Reception of that SSRC, for receiver reports.
    package var reception: RTPReceiverStatistics?
    /// When the last packet arrived (the host stops mixing a participant whose audio stopped).
    private(set) var lastArrival: Timestamp?

    init(configuration: ReceivePipelineConfiguration.Audio) throws {
        self.configuration = configuration
        jitterBuffer = try AudioJitterBuffer(configuration: configuration.jitterBuffer)
    }

    /// Whether a packet from `candidate` may go in: from the current source always; from
    /// another once the current one has been received for
    /// ``ReceivePipeline/sourceSwitchCooldown`` (a sender restart), not before (a stray
    /// packet, or a straggler of the source just replaced).
    func accepts(ssrc candidate: UInt32, at arrival: Timestamp) -> Bool {
        guard let ssrc, candidate != ssrc, let since = ssrcSince else { return true }
        return arrival - since >= ReceivePipeline.sourceSwitchCooldown
    }

    /// Stores a packet that arrived at `arrival`.
    func insert(_ packet: RTPPacketView, arrival: Timestamp) {
        if ssrc != packet.ssrc {
            ssrc = packet.ssrc
            ssrcSince = arrival
            reception = RTPReceiverStatistics(ssrc: packet.ssrc, clockRate: conferSampleRate)
        }
        reception?.receive(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: arrival)
        packetsInserted += 1
        payloadBytesInserted += packet.payload.count
        jitterBuffer.insert(packet, arrival: arrival)
        lastArrival = arrival
    }

    /// The next 10 ms of audio, played at `now`, into `frame`.
    func pull(at now: Timestamp, into frame: inout AudioFrame) {
        jitterBuffer.pull(at: now, into: &frame)
    }
}
