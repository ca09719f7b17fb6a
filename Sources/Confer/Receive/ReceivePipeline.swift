public import ConferMedia
import ConferRTP
import ConferSRTP
import ConferJitter

/// The receiving side of a call: datagrams in, pictures and audio out, feedback back.
///
/// ```
/// datagram ─► SRTP ─► RTP? ─► by payload type: video ─► VideoJitterBuffer ─► decoder ─► render
///                        │                     RTX ───┘   (NACK, PLI/FIR out)
///                        │                     audio ─► AudioJitterBuffer ─► pullAudio every 10 ms
///                        └─ transport-wide seq + arrival ─► transport-cc feedback every 50 ms
///          RTCP? ─► sender reports (for the LSR/DLSR of receiver reports, sent every second)
/// ```
///
/// Everything is synchronous and takes the time it happens at, like ``SendPipeline``:
/// call ``receive(_:at:)`` for each datagram as it arrives, ``poll(at:)`` at
/// ``nextPollTime`` (frames are delivered, NACKs repeated, feedback and reports sent then),
/// and ``pullAudio(at:into:)`` every 10 ms of playout. Pictures go to the `render` closure
/// with their render times, RTCP datagrams to the `output` closure (in a buffer valid only
/// during that call). Each media stream is known by payload type; a new SSRC on it is
/// taken up once two of its packets have come in sequence (RFC 3550 A.1's probation, so a
/// spray of RTP-shaped datagrams cannot take the stream over) and the source followed so far
/// has been silent for ``sourceTakeoverSilence`` (a sender restart; what it sent meanwhile is
/// held and handed on); the jitter buffers follow it. Other packets are counted and dropped.
///
/// The jitter buffer plans retransmissions with the round-trip time; a receiver that does
/// not send media has no RTCP to measure it with, so the app passes the RTT its own send
/// side measured (``setRoundTripTime(_:)``), otherwise the buffer's initial guess stands.
///
/// Not `Sendable`: one owner drives it.
public final class ReceivePipeline {
    /// The configuration in use.
    public let configuration: ReceivePipelineConfiguration
    package let video: ReceivePipelineVideoStream?
    package let audio: ReceivePipelineAudioStream?
    var transportFeedback = ReceivePipelineTransportFeedback()
    /// Unprotects what arrives.
    private let inbound: SRTPPair?
    /// Protects the feedback sent back.
    private let srtcpOutbound: SRTPSession?
    /// Where a datagram is copied to be unprotected (libsrtp works in place).
    private let input: UnsafeMutableRawBufferPointer
    /// Where RTCP is written.
    private let controlOutput: UnsafeMutableRawBufferPointer
    private let output: (UnsafeRawBufferPointer) -> Void
    private let render: (ReceivedVideoFrame) -> Void
    var nextFeedback: Timestamp?
    var nextReport: Timestamp?
    /// The most the sender should send, carried in REMB; nil: no limit asked.
    private(set) var requestedMaximumBitrate: Int?
    /// The round-trip time last handed to the video jitter buffer.
    private var roundTripTime: TimeDelta?
    package var counters = ReceivePipelineStatistics()

    static let controlBufferSize = 1500

    /// How long the source a stream follows must be silent before a new, validated SSRC
    /// replaces it: a sender that restarted is followed (what it sent meanwhile is held and
    /// handed on), a second stream beside a live one never.
    public static let sourceTakeoverSilence = TimeDelta.milliseconds(200)

    /// A pipeline receiving what `configuration` describes, rendering to `render` and
    /// sending its RTCP to `output`.
    ///
    /// - Throws: ``ReceivePipelineError`` for a configuration it cannot receive, or the
    ///   codec's or SRTP's error when one cannot be created.
    public init(configuration: ReceivePipelineConfiguration, output: @escaping (UnsafeRawBufferPointer) -> Void,
                render: @escaping (ReceivedVideoFrame) -> Void) throws {
        guard configuration.video != nil || configuration.audio != nil else {
            throw ReceivePipelineError(.invalidConfiguration, "a receive pipeline needs a video or an audio stream")
        }
        let payloadTypes = [configuration.video?.payloadType, configuration.video?.rtxPayloadType, configuration.audio?.payloadType]
            .compactMap { $0 }
        guard Set(payloadTypes).count == payloadTypes.count, payloadTypes.allSatisfy({ $0 <= 127 }) else {
            throw ReceivePipelineError(.invalidConfiguration, "every stream needs its own payload type, 0…127")
        }
        self.configuration = configuration
        video = try configuration.video.map {
            try ReceivePipelineVideoStream(configuration: $0, mode: configuration.mode, ownSSRC: configuration.ssrc)
        }
        audio = try configuration.audio.map { try ReceivePipelineAudioStream(configuration: $0, mode: configuration.mode) }
        inbound = try configuration.srtpKey.map { try SRTPPair(key: $0, direction: .inbound) }
        srtcpOutbound = try configuration.srtpKey.map { try SRTPSession(key: $0, direction: .outbound) }
        // A UDP datagram holds at most 65,507 bytes.
        input = .allocate(byteCount: 65_536, alignment: 16)
        controlOutput = .allocate(byteCount: Self.controlBufferSize + 64, alignment: 16)
        self.output = output
        self.render = render
    }

    deinit {
        input.deallocate()
        controlOutput.deallocate()
    }

    /// Takes one datagram that arrived at `arrival`: RTP goes to its stream's jitter
    /// buffer (which may deliver frames and ask for feedback at once), RTCP is read.
    /// Anything that does not authenticate, parse or belong to a configured stream is
    /// counted and dropped. Returns whether it authenticated (without SRTP: whether it was
    /// long enough to be RTP or RTCP), which is what consent to send to its sender
    /// (ConferNet's `MediaConsent`) goes by.
    @discardableResult
    public func receive(_ datagram: UnsafeRawBufferPointer, at arrival: Timestamp) -> Bool {
        counters.datagramsReceived += 1
        counters.bytesReceived += datagram.count
        guard datagram.count >= 8, datagram.count <= input.count else {
            discardMalformed()
            return false
        }
        let isControl = RTPDatagramRoute.isRTCP(datagram)
        var bytes = datagram
        if let session = isControl ? inbound?.rtcp : inbound?.rtp {
            UnsafeMutableRawBufferPointer(rebasing: input[0 ..< datagram.count]).copyMemory(from: datagram)
            let length = isControl ? try? session.unprotectRTCP(input, length: datagram.count)
                                   : try? session.unprotectRTP(input, length: datagram.count)
            guard let length else {
                // Counted by the session as an authentication failure, a replay or another failure.
                counters.packetsDiscarded += 1
                return false
            }
            bytes = UnsafeRawBufferPointer(rebasing: input[0 ..< length])
        }
        if isControl {
            receiveControl(bytes, at: arrival)
        } else {
            receiveMedia(bytes, at: arrival)
        }
        return true
    }

    /// Counts a datagram that is neither RTP nor RTCP.
    func discardMalformed() {
        counters.malformedPackets += 1
        counters.packetsDiscarded += 1
    }

    private func receiveMedia(_ bytes: UnsafeRawBufferPointer, at arrival: Timestamp) {
        guard let packet = try? RTPPacketView(bytes) else {
            discardMalformed()
            return
        }
        let payloadType = packet.payloadType
        if let video, payloadType == video.configuration.payloadType {
            guard admit(packet, bytes, at: arrival, into: &video.probation) else { return }
            video.insert(packet, arrival: arrival, handle)
        } else if let video, payloadType == video.configuration.rtxPayloadType {
            video.insertRetransmission(packet, arrival: arrival, handle)
        } else if let audio, payloadType == audio.configuration.payloadType {
            guard admit(packet, bytes, at: arrival, into: &audio.probation) else { return }
            audio.insert(packet, arrival: arrival)
        } else {
            counters.packetsOfUnknownPayloadType += 1
            counters.packetsDiscarded += 1
            return
        }
        accepted(packet, at: arrival)
    }

    /// Counts an accepted media packet and schedules the feedback and reports it calls for.
    private func accepted(_ packet: RTPPacketView, at arrival: Timestamp) {
        counters.rtpPacketsReceived += 1
        // A recorder sends no RTCP, so it schedules none.
        guard !configuration.mode.isRecording else { return }
        if let id = configuration.transportSequenceNumberID,
           let sequenceNumber = try? packet.extensionValue(RTPTransportSequenceNumber.self, id: id) {
            transportFeedback.packetArrived(sequenceNumber.value, at: arrival)
            if nextFeedback == nil { nextFeedback = arrival + configuration.feedbackInterval }
        }
        if nextReport == nil { nextReport = arrival + configuration.reportInterval }
    }

    /// Whether `packet` goes in now. When it takes up a new source, the packets held for that
    /// source go in first, at their own arrival times; held or dropped packets are counted.
    private func admit(_ packet: RTPPacketView, _ bytes: UnsafeRawBufferPointer, at arrival: Timestamp,
                       into probation: inout RTPSourceProbation) -> Bool {
        switch probation.admit(ssrc: packet.ssrc, sequenceNumber: packet.sequenceNumber, bytes: bytes, at: arrival) {
        case .accept:
            return true
        case .takeUp(let replay):
            counters.packetsOnProbation -= replay.count
            for held in replay {
                held.bytes.withUnsafeBytes { raw in
                    guard let heldPacket = try? RTPPacketView(raw) else { return }
                    if let video, heldPacket.payloadType == video.configuration.payloadType {
                        video.insert(heldPacket, arrival: held.arrival, handle)
                    } else {
                        audio?.insert(heldPacket, arrival: held.arrival)
                    }
                    accepted(heldPacket, at: held.arrival)
                }
            }
            return true
        case .hold(let dropped):
            counters.packetsOnProbation += 1 - dropped
            counters.packetsFromOtherSources += dropped
            counters.packetsDiscarded += dropped
            return false
        }
    }

    /// Does what is due at `now`: frames whose render time came, NACK and keyframe request
    /// repeats, transport-cc feedback, receiver reports.
    public func poll(at now: Timestamp) {
        if let video, let wakeup = video.jitterBuffer.nextWakeup, wakeup <= now {
            video.poll(at: now, handle)
        }
        if let due = nextFeedback, now >= due {
            sendTransportFeedback()
            nextFeedback = transportFeedback.hasPending ? now + configuration.feedbackInterval : nil
        }
        if let due = nextReport, now >= due {
            sendReport(at: now)
            nextReport = max(due + configuration.reportInterval, now)
        }
    }

    /// The next time ``poll(at:)`` has something to do, if any.
    public var nextPollTime: Timestamp? {
        func earlier(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
            guard let a else { return b }
            guard let b else { return a }
            return min(a, b)
        }
        return earlier(earlier(video?.jitterBuffer.nextWakeup, nextFeedback), nextReport)
    }

    /// Fills `frame` with the next 10 ms of audio, played at `now` (silence without audio).
    public func pullAudio(at now: Timestamp, into frame: inout AudioFrame) {
        if let audio {
            audio.pull(at: now, into: &frame)
        } else {
            frame = AudioFrame(silenceOf: 480, channels: frame.channels, timestamp: now)
        }
    }

    /// Called with each encoded video frame the jitter buffer hands the decoder, just before
    /// it is decoded: the stream as received, in decode order, with its timestamp relative
    /// to the first frame (for recording it without encoding again). In
    /// ``ReceivePipelineMode/recording(reorderWindow:)`` it is also called with each Opus
    /// packet as it comes, its timestamp relative to the first packet's, for the app to
    /// decode. The frame is valid beyond the call, but keeping it makes the buffer allocate
    /// a new one.
    public var encodedFrameHandler: ((EncodedFrame) -> Void)? {
        didSet {
            video?.deliveredFrameHandler = encodedFrameHandler
            audio?.recordedFrameHandler = encodedFrameHandler
        }
    }

    /// Sets the round-trip time the video jitter buffer plans retransmissions and its
    /// delay with (measured by the app's own send side). Callers may pass it after every
    /// feedback packet: only a changed value reaches the buffer, whose NACK schedule each
    /// update makes it recompute.
    public func setRoundTripTime(_ rtt: TimeDelta) {
        guard rtt != roundTripTime else { return }
        roundTripTime = rtt
        video?.updateRTT(rtt)
    }

    /// Asks the sender to send at most `bitsPerSecond` in all (RFC draft-alvestrand-rmcat-remb),
    /// or lifts the limit with nil: sent at once when it changes and again with every
    /// receiver report, so a lost one is repaired. A host asks each participant for what its
    /// tile shows; the sender's ``ScalingVideoEncoder`` picks the size that bitrate affords.
    public func requestMaximumBitrate(_ bitsPerSecond: Int?) {
        let limit = bitsPerSecond.map { max($0, 1) }
        guard limit != requestedMaximumBitrate else { return }
        requestedMaximumBitrate = limit
        if let remb = maximumBitrateRequest { sendControl([remb]) }
        counters.maximumBitrateRequests += 1
    }

    /// The REMB carrying ``requestedMaximumBitrate`` for the streams heard; nil while no
    /// limit is asked. (Lifting a limit is a REMB of zero, which the sender reads as none.)
    var maximumBitrateRequest: RTCPPacket? {
        let ssrcs = [video?.ssrc, audio?.ssrc].compactMap { $0 }
        guard !ssrcs.isEmpty, counters.maximumBitrateRequests > 0 || requestedMaximumBitrate != nil else { return nil }
        return .receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate(
            senderSSRC: configuration.ssrc, bitrate: UInt64(requestedMaximumBitrate ?? 0), ssrcs: ssrcs))
    }

    /// Counters and state now.
    public var statistics: ReceivePipelineStatistics {
        var result = counters
        result.video = video?.jitterBuffer.statistics
        result.audio = audio?.jitterBuffer.statistics
        result.decoderFailures = video?.decoderFailures ?? 0
        result.framesWithoutPicture = video?.framesWithoutPicture ?? 0
        result.retransmissionsReceived = video?.retransmissionsReceived ?? 0
        result.paddingPacketsReceived = video?.paddingReceived ?? 0
        result.transportFeedbackSent = transportFeedback.messagesBuilt
        result.srtp = inbound?.stats
        return result
    }

    /// Acts on what the video stream asks for.
    private func handle(_ item: ReceivePipelineVideoStream.Output) {
        switch item {
        case .frame(let frame):
            render(frame)
        case .feedback(let packet):
            switch packet {
            case .genericNACK: counters.nacksSent += 1
            default: counters.keyframeRequestsSent += 1
            }
            sendControl([packet])
        }
    }

    /// Writes `packets` as one compound, protects it and hands it to the output.
    func sendControl(_ packets: [RTCPPacket]) {
        guard !configuration.mode.isRecording else { return }
        let body = UnsafeMutableRawBufferPointer(rebasing: controlOutput[0 ..< Self.controlBufferSize])
        guard var size = try? RTCPCompound.serialize(packets, into: body) else { return }
        if let srtcpOutbound {
            guard let protected = try? srtcpOutbound.protectRTCP(controlOutput, length: size) else { return }
            size = protected
        }
        output(UnsafeRawBufferPointer(rebasing: controlOutput[0 ..< size]))
    }
}
