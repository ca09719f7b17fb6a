import ConferMedia
import ConferCodecs
package import ConferRTP
package import ConferJitter

/// The video half of a ``ReceivePipeline``: the jitter buffer, the decoder, and the
/// reception statistics for receiver reports.
package final class ReceivePipelineVideoStream {
    /// What the stream asks the pipeline to do.
    enum Output {
        /// Send this RTCP feedback.
        case feedback(RTCPPacket)
        /// Show this picture.
        case frame(ReceivedVideoFrame)
    }

    let configuration: ReceivePipelineConfiguration.Video
    /// The receiver's SSRC, the sender of its feedback.
    private let ownSSRC: UInt32
    package private(set) var jitterBuffer: VideoJitterBuffer
    private let decoder: AnyVideoDecoder
    /// The media SSRC heard last (the jitter buffer restarts when it changes).
    private(set) var ssrc: UInt32?
    /// When `ssrc` was taken up.
    private var ssrcSince: Timestamp?
    /// Sees each frame delivered for decoding (``ReceivePipeline/encodedFrameHandler``).
    var deliveredFrameHandler: ((EncodedFrame) -> Void)?
    /// Media packets given to the jitter buffer (duplicates included, retransmissions not).
    package private(set) var packetsInserted = 0
    /// Payload bytes of those packets.
    package private(set) var payloadBytesInserted = 0
    /// Reception of the media SSRC, for receiver reports.
    package var reception: RTPReceiverStatistics?
    /// The RTP timestamp of the first frame the jitter buffer completed since it (re)started:
    /// delivered frames carry their timestamp relative to it.
    private var timeReference: UInt32?
    private var seenRestarts = 0
    private var seenFramesReceived = 0
    private(set) var decoderFailures = 0
    private(set) var framesWithoutPicture = 0
    private(set) var retransmissionsReceived = 0
    private(set) var malformedRetransmissions = 0
    private(set) var paddingReceived = 0

    init(configuration: ReceivePipelineConfiguration.Video, mode: ReceivePipelineMode, ownSSRC: UInt32) throws {
        guard configuration.codec.isVideo else {
            throw ReceivePipelineError(.invalidConfiguration, "opus is an audio codec; the video stream needs vp8, vp9 or h264")
        }
        self.configuration = configuration
        self.ownSSRC = ownSSRC
        var bufferConfiguration = configuration.jitterBuffer
        if case .recording(let reorderWindow) = mode {
            // A recorder asks for nothing again and writes every frame as it completes.
            bufferConfiguration.nackEnabled = false
            bufferConfiguration.deliversWhenComplete = true
            bufferConfiguration.reorderWindow = reorderWindow
        }
        do {
            jitterBuffer = try VideoJitterBuffer(codec: configuration.codec, configuration: bufferConfiguration)
        } catch {
            throw ReceivePipelineError(.invalidConfiguration, error.detail)
        }
        decoder = try AnyVideoDecoder(codec: configuration.codec, threads: configuration.decoderThreads)
    }

    /// Which SSRC the stream follows: new ones on probation, no takeover of a live one.
    var probation = RTPSourceProbation(takeoverSilence: ReceivePipeline.sourceTakeoverSilence)

    /// Buffers a media packet that arrived at `arrival` and does what the buffer says.
    func insert(_ packet: RTPPacketView, arrival: Timestamp, _ output: (Output) -> Void) {
        if ssrc != packet.ssrc {
            ssrc = packet.ssrc
            ssrcSince = arrival
            reception = RTPReceiverStatistics(ssrc: packet.ssrc, clockRate: configuration.codec.rtpClockRate)
        }
        reception?.receive(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: arrival)
        packetsInserted += 1
        payloadBytesInserted += packet.payload.count
        let actions = jitterBuffer.insert(packet, arrival: arrival)
        noteCompletion(rtpTimestamp: packet.timestamp)
        perform(actions, at: arrival, output)
    }

    /// Buffers a retransmission (RFC 4588) of the media stream.
    func insertRetransmission(_ packet: RTPPacketView, arrival: Timestamp, _ output: (Output) -> Void) {
        // Padding-only packets probe the path (RFC 4588 §8.3 allows padding on RTX); transport-cc has counted them.
        if packet.payload.isEmpty {
            paddingReceived += 1
            return
        }
        guard ssrc != nil, let rtx = try? RTXPacket(packet) else {
            malformedRetransmissions += 1
            return
        }
        retransmissionsReceived += 1
        let actions = jitterBuffer.insertRetransmission(rtx, arrival: arrival)
        noteCompletion(rtpTimestamp: packet.timestamp)
        perform(actions, at: arrival, output)
    }

    /// Delivers what is due at `now`, repeats NACKs and keyframe requests that are due.
    func poll(at now: Timestamp, _ output: (Output) -> Void) {
        perform(jitterBuffer.poll(at: now), at: now, output)
    }

    /// Sets the round-trip time the jitter buffer plans retransmissions with.
    func updateRTT(_ rtt: TimeDelta) { jitterBuffer.updateRTT(rtt) }

    /// Learns the time reference: the packet just inserted completed the first frame since
    /// the buffer (re)started when its frame counter moved while no reference was set.
    private func noteCompletion(rtpTimestamp: UInt32) {
        let statistics = jitterBuffer.statistics
        if statistics.streamRestarts != seenRestarts {
            seenRestarts = statistics.streamRestarts
            timeReference = nil
        }
        if statistics.framesReceived != seenFramesReceived {
            seenFramesReceived = statistics.framesReceived
            if timeReference == nil { timeReference = rtpTimestamp }
        }
    }

    private func perform(_ actions: [VideoJitterBufferAction], at now: Timestamp, _ output: (Output) -> Void) {
        var failed = false
        for action in actions {
            switch action {
            case .sendNACK(let sequenceNumbers):
                guard let ssrc, !sequenceNumbers.isEmpty else { continue }
                output(.feedback(.genericNACK(RTCPGenericNACK(senderSSRC: ownSSRC, mediaSSRC: ssrc, lostSequenceNumbers: sequenceNumbers))))
            case .requestKeyframe(let request):
                guard let ssrc else { continue }
                switch request.method {
                case .pli:
                    output(.feedback(.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: ownSSRC, mediaSSRC: ssrc))))
                case .fir:
                    output(.feedback(.fullIntraRequest(RTCPFullIntraRequest(
                        senderSSRC: ownSSRC, entries: [.init(ssrc: ssrc, sequenceNumber: request.firSequenceNumber)]))))
                }
            case .deliver(let encoded, let renderTime):
                deliveredFrameHandler?(encoded)
                if !decode(encoded, renderTime: renderTime, at: now, output) { failed = true }
            case .frameDropped:
                continue
            }
        }
        if failed {
            perform(jitterBuffer.decoderFailed(at: now), at: now, output)
        }
    }

    /// Decodes one delivered frame and hands its picture on; false when the decoder failed.
    ///
    /// A decoder may produce no picture without failing (H.264 parameter sets on their own,
    /// a decoder already waiting for a keyframe): that is counted, not reported as a failure.
    private func decode(_ encoded: EncodedFrame, renderTime: Timestamp, at now: Timestamp, _ output: (Output) -> Void) -> Bool {
        guard let ssrc, let reference = timeReference else {
            decoderFailures += 1
            return false
        }
        let picture: VideoFrame?
        do {
            picture = try decoder.decode(encoded)
        } catch {
            decoderFailures += 1
            return false
        }
        guard let picture else {
            framesWithoutPicture += 1
            return true
        }
        jitterBuffer.frameDecoded(at: now, isKeyframe: encoded.isKeyframe)
        let shown = max(renderTime, now)
        jitterBuffer.frameRendered(at: shown)
        // Relative media time back to RTP ticks, rounding to the nearest tick (the buffer
        // converted ticks to whole microseconds rounding down).
        let ticks = RTPPacketizer.ticks(encoded.timestamp - .zero, clockRate: configuration.codec.rtpClockRate)
        output(.frame(ReceivedVideoFrame(
            frame: picture, renderTime: shown, rtpTimestamp: reference &+ UInt32(truncatingIfNeeded: ticks),
            ssrc: ssrc, isKeyframe: encoded.isKeyframe)))
        return true
    }
}
