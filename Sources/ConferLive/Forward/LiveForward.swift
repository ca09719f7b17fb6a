import ConferMedia
public import ConferNet
import ConferRTP

/// Where a live host sends a plain-RTP copy of the meeting for an audience outside it: the
/// composite, and the whole mix. Meant for an SFU that ingests plain RTP and fans it out,
/// such as Janus's streaming plugin (a mountpoint of type `rtp`: one port for video, one
/// for audio), or for `ffmpeg -i stream.sdp`.
///
/// The operator running the host names these addresses, not a member, so they need no
/// consent check; and the copy carries no encryption, so they belong on a network the
/// operator trusts (loopback, or the SFU's private address).
public struct LiveForwardTarget: Sendable, Hashable {
    /// Where the composite's RTP goes.
    public var video: UDPAddress
    /// Where the mix's RTP goes (none: video only).
    public var audio: UDPAddress?
    /// The SFU's RTCP port for the composite (Janus: the video media's `rtcpport`). The
    /// host sends a sender report there every second, which also tells the SFU where to
    /// send feedback; a PLI or FIR from there (Janus sends one when a viewer starts
    /// watching, and passes on a viewer's) gets the composite a keyframe, through the same
    /// throttle as a member's. None: no RTCP, and a viewer waits for a keyframe a member's
    /// join or loss happens to ask for.
    public var videoRTCP: UDPAddress?
    /// The SFU's RTCP port for the mix: sender reports only (a mix needs no keyframe).
    public var audioRTCP: UDPAddress?
    /// The composite's payload type (Janus's mountpoint must name the same).
    public var videoPayloadType: UInt8 = 96
    /// The mix's payload type.
    public var audioPayloadType: UInt8 = 111

    /// A forward of the composite to `video` and of the mix to `audio`, with RTCP on
    /// `videoRTCP` and `audioRTCP`.
    public init(video: UDPAddress, audio: UDPAddress? = nil, videoRTCP: UDPAddress? = nil, audioRTCP: UDPAddress? = nil) {
        self.video = video
        self.audio = audio
        self.videoRTCP = videoRTCP
        self.audioRTCP = audioRTCP
    }
}

/// Packetizes what the host encodes once, the composite and the whole mix, into plain RTP
/// for a ``LiveForwardTarget``: one more packetization of frames already encoded, no
/// encode of its own. The packets wait in queues until the host's loop sends them, with a
/// sender report per stream each second where the target names RTCP ports; the SFU's
/// keyframe requests come back through ``takeFeedback(_:)``.
///
/// Not `Sendable`: the host's loop owns it.
final class LiveForward {
    /// The composite's SSRC in the copy (not the one members receive: another stream).
    static let videoSSRC: UInt32 = 0x5F00_0001
    /// The mix's SSRC in the copy.
    static let audioSSRC: UInt32 = 0x5F00_0002
    /// Payload bytes a packet carries at most: what a 1,200-byte datagram leaves.
    static let maximumPayloadSize = 1200 - 12
    /// How often each stream's sender report goes (RFC 3550's minimum interval is 5 s; a
    /// second lets an SFU latch on and map timestamps soon after the start).
    static let reportInterval = TimeDelta.seconds(1)
    /// The CNAME both streams' reports carry: one source, so a player can sync them.
    static let cname = "confer-forward"

    let video: UDPDestination
    let audio: UDPDestination?
    let videoRTCP: UDPDestination?
    let audioRTCP: UDPDestination?
    private var videoPacketizer: RTPPacketizer
    private var audioPacketizer: RTPPacketizer
    /// What each stream sent, for its sender reports.
    private var videoSent = RTPSenderStatistics(ssrc: LiveForward.videoSSRC, clockRate: 90_000)
    private var audioSent = RTPSenderStatistics(ssrc: LiveForward.audioSSRC, clockRate: 48_000)
    /// The wall-clock NTP time of the host's clock, for the reports.
    private let ntpClock: NTPClockMapping
    /// When the next reports are due (nil: at the first flush).
    private var nextReport: Timestamp?
    /// The last FIR command sequence number taken (RFC 5104: a repeat is the same request).
    private var lastFIRSequenceNumber: UInt8?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
    /// Composite packets not yet sent.
    let videoPackets = DatagramQueue()
    /// Mix packets not yet sent.
    let audioPackets = DatagramQueue(reservingBytes: 4 * 1500, datagrams: 4)
    /// Packets sent, both streams.
    private(set) var packetsSent = 0
    /// Bytes sent, both streams.
    private(set) var bytesSent = 0
    /// Sender reports sent, both streams.
    private(set) var reportsSent = 0
    /// PLIs and new FIRs for the composite that came from the SFU.
    private(set) var keyframeRequests = 0
    /// Datagrams from the SFU's RTCP ports that were not RTCP, dropped.
    private(set) var feedbackDropped = 0

    /// A forward of `codec` video (and Opus) to `target`; `ntpClock` maps the host's clock
    /// to wall-clock NTP time for the sender reports.
    ///
    /// One that replaces `previous` goes on with its streams where they use the same codec
    /// and payload types: the same SSRCs, the next sequence numbers, the same timestamp
    /// mapping and the sender reports' running counts. A stream is the host's, not the
    /// address's: an SFU that keeps listening (the administrator added an audio port, or
    /// named the RTCP port) sees no jump of thousands of sequence numbers under one SSRC,
    /// which a receiver takes for a loss burst or a restart (RFC 3550 §A.1).
    init(_ target: LiveForwardTarget, codec: Codec, seed: UInt64, ntpClock: NTPClockMapping, continuing previous: LiveForward? = nil) throws {
        video = try UDPSocket.resolve(target.video)
        audio = try target.audio.map { try UDPSocket.resolve($0) }
        videoRTCP = try target.videoRTCP.map { try UDPSocket.resolve($0) }
        audioRTCP = try target.audio == nil ? nil : target.audioRTCP.map { try UDPSocket.resolve($0) }
        self.ntpClock = ntpClock
        if let previous, previous.videoPacketizer.codec == codec, previous.videoPacketizer.payloadType == target.videoPayloadType,
           previous.audioPacketizer.payloadType == target.audioPayloadType {
            (videoPacketizer, audioPacketizer) = (previous.videoPacketizer, previous.audioPacketizer)
            (videoSent, audioSent) = (previous.videoSent, previous.audioSent)
            return
        }
        var random = SeededRandom(seed: seed)
        videoPacketizer = try RTPPacketizer(codec: codec, ssrc: Self.videoSSRC, payloadType: target.videoPayloadType,
                                            firstSequenceNumber: .random(in: 0 ... .max, using: &random),
                                            timestampOffset: .random(in: 0 ... .max, using: &random))
        audioPacketizer = try RTPPacketizer(codec: .opus, ssrc: Self.audioSSRC, payloadType: target.audioPayloadType,
                                            firstSequenceNumber: .random(in: 0 ... .max, using: &random),
                                            timestampOffset: .random(in: 0 ... .max, using: &random))
    }

    deinit { buffer.deallocate() }

    /// A composite frame as the host encoded it.
    func take(video frame: EncodedFrame) {
        packetize(frame, with: &videoPacketizer, counting: &videoSent, into: videoPackets)
    }

    /// A frame of the whole mix as the host encoded it (dropped without an audio address).
    func take(audio frame: EncodedFrame) {
        guard audio != nil else { return }
        packetize(frame, with: &audioPacketizer, counting: &audioSent, into: audioPackets)
    }

    /// Whether a datagram from `source` is the SFU's feedback, for ``takeFeedback(_:)``.
    func isFeedbackSource(_ source: UDPAddress) -> Bool {
        source == videoRTCP?.address || source == audioRTCP?.address
    }

    /// Reads an RTCP compound from the SFU; true when it asks for a keyframe of the
    /// composite (a PLI, or a FIR with a new command sequence number). Receiver reports and
    /// REMBs are read and left: the audience's estimate does not set the meeting's bitrate.
    /// Anything that is not RTCP is counted and dropped.
    func takeFeedback(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let packets = try? RTCPCompound.parse(bytes) else {
            feedbackDropped += 1
            return false
        }
        var wantsKeyframe = false
        for packet in packets {
            switch packet {
            case .pictureLossIndication(let pli) where pli.mediaSSRC == Self.videoSSRC:
                wantsKeyframe = true
            case .fullIntraRequest(let fir):
                for entry in fir.entries where entry.ssrc == Self.videoSSRC && entry.sequenceNumber != lastFIRSequenceNumber {
                    lastFIRSequenceNumber = entry.sequenceNumber
                    wantsKeyframe = true
                }
            default:
                break
            }
        }
        if wantsKeyframe { keyframeRequests += 1 }
        return wantsKeyframe
    }

    /// Sends what is queued on `socket`, and empties the queues; at `now`, the sender
    /// reports when they are due.
    func flush(on socket: UDPSocket, at now: Timestamp) async {
        // Each queue on its own: this runs at every turn of the host's loop, and a list of
        // the two would be an array made each time.
        await send(videoPackets, to: video, on: socket)
        await send(audioPackets, to: audio, on: socket)
        guard videoRTCP != nil || audioRTCP != nil, nextReport.map({ now >= $0 }) ?? true else { return }
        nextReport = now + Self.reportInterval
        for report in reports(at: now) {
            if (try? await socket.send(report.bytes, to: report.destination)) != nil { reportsSent += 1 }
        }
    }

    /// Sends what `queue` holds to `destination` in one write, counts it, and empties it.
    private func send(_ queue: DatagramQueue, to destination: UDPDestination?, on socket: UDPSocket) async {
        guard let destination, !queue.isEmpty else { return }
        if (try? await socket.send(queue.count, to: destination, { queue[$0] })) != nil {
            packetsSent += queue.count
            bytesSent += (0 ..< queue.count).reduce(0) { $0 + queue[$1].count }
        }
        queue.removeAll()
    }

    /// The sender reports due at `now`: SR and SDES CNAME (RFC 3550 §6.1: a compound
    /// starts with a report and carries the CNAME), for each stream with an RTCP port.
    func reports(at now: Timestamp) -> [(destination: UDPDestination, bytes: [UInt8])] {
        var reports: [(UDPDestination, [UInt8])] = []
        for (destination, sent, packetizer) in [(videoRTCP, videoSent, videoPacketizer), (audioRTCP, audioSent, audioPacketizer)] {
            guard let destination else { continue }
            // The RTP timestamp of this instant on the stream's own mapping, which every
            // packet's timestamp comes from (RFC 3550 §6.4.1), whether or not one went yet.
            let report = RTCPSenderReport(ssrc: sent.ssrc, ntpTime: ntpClock.ntpTime(at: now),
                                          rtpTimestamp: packetizer.rtpTimestamp(at: now),
                                          packetCount: UInt32(truncatingIfNeeded: sent.packetsSent),
                                          octetCount: UInt32(truncatingIfNeeded: sent.octetsSent), reportBlocks: [])
            let description = RTCPSourceDescription(ssrc: sent.ssrc, cname: Self.cname)
            guard let bytes = try? RTCPCompound.serialized([.senderReport(report), .sourceDescription(description)]) else { continue }
            reports.append((destination, bytes))
        }
        return reports
    }

    private func packetize(_ frame: EncodedFrame, with packetizer: inout RTPPacketizer, counting sent: inout RTPSenderStatistics,
                           into queue: DatagramQueue) {
        let rtpTimestamp = packetizer.rtpTimestamp(at: frame.timestamp)
        let (buffer, headerSize) = (buffer, packetizer.headerSize)
        _ = try? packetizer.packetize(frame, rtpTimestamp: rtpTimestamp, captureTime: frame.timestamp,
                                      maxPayloadSize: Self.maximumPayloadSize, into: buffer) { (length: Int) throws(Never) in
            queue.append(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
            sent.sent(payloadSize: length - headerSize, rtpTimestamp: rtpTimestamp, captureTime: frame.timestamp)
        }
    }
}
