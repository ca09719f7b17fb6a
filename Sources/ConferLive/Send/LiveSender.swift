public import ConferMedia
import ConferCodecs
public import ConferNet
import ConferRTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends a media file as one RTP stream over UDP, in real time: `confer send`.
///
/// Everything goes through a ``SendPipeline`` on the wall clock: raw video and audio (Y4M,
/// WAV, or anything else decoded first) are encoded live as each frame's time comes; IVF
/// and Annex-B already in the codec asked for go out as they are. The socket it sends from
/// also reads the receiver's RTCP and the pipeline answers it: NACK with retransmissions
/// (RFC 4588 RTX, from the packet history, pass-through included), PLI and FIR with a
/// keyframe (not possible for pass-through), transport-cc and receiver reports with a lower
/// bitrate when the path is congested (never above the one asked for, which it starts at).
///
/// Sender reports and the CNAME go to the port above the RTP port about once a second, as
/// FFmpeg and GStreamer expect, until RTCP from the receiver arrives from the RTP port
/// itself: the receiver multiplexes (RFC 5761), so they go there from then on. At the end
/// the sender keeps answering feedback for ``LiveSenderOptions/linger`` (only when it hears
/// any) and says goodbye (BYE). The SDP describing the stream is written before the first
/// packet, so a peer (ffmpeg, ffplay, GStreamer) can be pointed at it.
///
/// What a plain peer sees: the media payload type only, with a transport-wide sequence
/// number header extension (RFC 8285 one-byte form, id 3) it may ignore; retransmissions
/// and their payload type only if it asks for them; no probing padding.
public enum LiveSender {
    /// The payload type used when none is given: 96 for video, 111 for Opus (what browsers offer).
    public static func defaultPayloadType(for codec: Codec) -> UInt8 { codec == .opus ? 111 : 96 }

    /// The payload type retransmissions (RFC 4588 RTX) of a stream on `payloadType` are
    /// sent with: the one above it (97 for 96), or 126 for 127.
    public static func defaultRTXPayloadType(for payloadType: UInt8) -> UInt8 { payloadType >= 127 ? 126 : payloadType + 1 }

    /// The SDP for the stream `options` describe, with `ssrc` and `channels` (audio).
    public static func sessionDescription(for options: LiveSenderOptions, ssrc: UInt32? = nil, channels: Int = 1) -> SessionDescription {
        SessionDescription(
            codec: options.codec, payloadType: options.effectivePayloadType, address: options.destination.host,
            port: options.destination.port, channels: channels, ssrc: ssrc ?? options.ssrc,
            crypto: options.srtpKey.map { "\($0.profile.rawValue) \($0.inlineKeyParameter)" }, rtcpMux: options.rtcpMux)
    }

    /// Sends `input` as `options` say, until its end, the duration, or `stopRequested()` (looked
    /// at every turn of the loop; it ends the media there as the end of the file would, with
    /// the lingering and the BYE); `progress(framesSent)` is called after every frame, and
    /// `second(report)` each time a whole second of media has gone out, with the report so
    /// far (its ``LiveSendReport/wallSeconds`` is filled in only at the end).
    public static func run(input: String, options: LiveSenderOptions, clock: some MediaClock = WallClock(),
                           stopRequested: () -> Bool = { false },
                           progress: (Int) -> Void = { _ in },
                           second: (LiveSendReport) -> Void = { _ in }) async throws -> LiveSendReport {
        let source = try LiveSenderSource(path: input, codec: options.codec, threads: options.threads, loops: options.loops)
        var random = RandomSource(seed: options.randomSeed)
        let ssrc = options.ssrc ?? UInt32(truncatingIfNeeded: random.next())
        var rtxSSRC = UInt32(truncatingIfNeeded: random.next())
        if rtxSSRC == ssrc { rtxSSRC &+= 1 }
        let destination = try UDPSocket.resolve(options.destination)
        let control = !options.rtcpMux && options.destination.port < 65_535
            ? try UDPSocket.resolve(UDPAddress(host: options.destination.host, port: options.destination.port + 1)) : nil
        if let path = options.sdpPath {
            let sdp = sessionDescription(for: options, ssrc: ssrc, channels: source.channels)
            try writeText(sdp.text, to: path)
        }
        let bindHost = options.destination.host.contains(":") ? "::" : "0.0.0.0"
        let wallStart = ContinuousClock.now
        var report = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: bindHost, port: 0)) { socket in
            let session = try LiveSenderSession(
                source: source, options: options, ssrc: ssrc, rtxSSRC: rtxSSRC, seed: random.next(),
                destination: destination, control: control, clock: clock, ntpClock: .wallClock(clock))
            var secondsReported = 0
            _ = try await RealtimeLoop.run(socket: socket, clock: clock, pool: session.pool) { event, now in
                if stopRequested() { session.endMedia() }
                let next = try await session.handle(event, at: now, socket: socket, progress: progress)
                // One report however many seconds a turn closed: they would all say the same.
                if session.secondsSent > secondsReported {
                    secondsReported = session.secondsSent
                    second(session.report(input: input))
                }
                return next
            }
            return session.report(input: input)
        }
        report.wallSeconds = (ContinuousClock.now - wallStart).seconds
        return report
    }

    private static func writeText(_ text: String, to path: String) throws {
        let sink = try FileByteSink(path: path)
        try sink.write(Array(text.utf8))
        try sink.close()
    }
}

/// The sender's random numbers: the system's generator, or a seeded one for repeatable runs.
struct RandomSource {
    private var seeded: SeededRandom?
    private var system = SystemRandomNumberGenerator()

    init(seed: UInt64?) { seeded = seed.map { SeededRandom(seed: $0) } }

    mutating func next() -> UInt64 {
        if seeded != nil { return seeded!.next() }
        return system.next()
    }
}
