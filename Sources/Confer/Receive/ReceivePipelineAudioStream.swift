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

    /// Whether packets are handed out as they come (``ReceivePipelineMode/recording(reorderWindow:)``)
    /// instead of going into the jitter buffer.
    private let isRecording: Bool
    /// Sees each packet handed out when recording (``ReceivePipeline/encodedFrameHandler``).
    var recordedFrameHandler: ((EncodedFrame) -> Void)?
    /// The frame handed out last when recording; its buffer is reused.
    private var recorded = EncodedFrame(codec: .opus, isKeyframe: true)
    private var sequenceUnwrapper = Unwrapper<UInt16>()
    private var timestampUnwrapper = Unwrapper<UInt32>()
    private var firstTimestamp: Int64?
    private var lastRecordedSequence: Int64?
    /// Recording: packets handed out.
    package private(set) var packetsRecorded = 0
    /// Recording: packets that came after a later one was handed out (reordered or repeated), dropped.
    package private(set) var packetsLate = 0
    /// Recording: packets whose payload is not an Opus packet, dropped.
    package private(set) var packetsMalformed = 0

    init(configuration: ReceivePipelineConfiguration.Audio, mode: ReceivePipelineMode = .playout) throws {
        self.configuration = configuration
        isRecording = mode.isRecording
        jitterBuffer = try AudioJitterBuffer(configuration: configuration.jitterBuffer)
    }

    /// Which SSRC the stream follows: new ones on probation, no takeover of a live one.
    var probation = RTPSourceProbation(takeoverSilence: ReceivePipeline.sourceTakeoverSilence)

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
        lastArrival = arrival
        if isRecording {
            record(packet)
        } else {
            jitterBuffer.insert(packet, arrival: arrival)
        }
    }

    /// Hands `packet` out as an Opus frame timed from the first packet, unless it comes
    /// after a later packet (a recording only goes forward) or is not Opus.
    private func record(_ packet: RTPPacketView) {
        let sequence = sequenceUnwrapper.unwrap(packet.sequenceNumber)
        let timestamp = timestampUnwrapper.unwrap(packet.timestamp)
        if let last = lastRecordedSequence, sequence <= last {
            packetsLate += 1
            return
        }
        let descriptor: OpusPayloadDescriptor
        do { descriptor = try OpusPayloadDescriptor.parse(packet.payload) } catch {
            packetsMalformed += 1
            return
        }
        lastRecordedSequence = sequence
        let first = firstTimestamp ?? timestamp
        firstTimestamp = first
        recorded.data.removeAll(keepingCapacity: true)
        recorded.data.append(contentsOf: packet.payload)
        recorded.timestamp = Timestamp.fromTicks(timestamp - first, rate: conferSampleRate)
        recorded.duration = descriptor.duration
        packetsRecorded += 1
        recordedFrameHandler?(recorded)
    }

    /// The next 10 ms of audio, played at `now`, into `frame`.
    func pull(at now: Timestamp, into frame: inout AudioFrame) {
        jitterBuffer.pull(at: now, into: &frame)
    }
}
