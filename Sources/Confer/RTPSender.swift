public import ConferMedia
import ConferCodecs
public import ConferNet
import ConferRTP
import ConferSRTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends a media file as one RTP stream over UDP, in real time: `confer send`.
///
/// Frames go out when their media time comes on the clock; each is packetized once into a
/// reused buffer and, with a key, SRTP-protected in place. The SDP describing the stream
/// is written before the first packet, so a peer (ffmpeg, ffplay, GStreamer) can be
/// pointed at it. About once a second an RTCP sender report and CNAME go to the port
/// above the RTP port (SRTCP with a key), and a BYE at the end.
public enum RTPSender {
    /// The payload type used when none is given: 96 for video, 111 for Opus (what browsers offer).
    public static func defaultPayloadType(for codec: Codec) -> UInt8 { codec == .opus ? 111 : 96 }

    /// The SDP for the stream `options` describe, with `ssrc` and `channels` (audio).
    public static func sessionDescription(for options: RTPSenderOptions, ssrc: UInt32? = nil, channels: Int = 1) -> SessionDescription {
        SessionDescription(
            codec: options.codec, payloadType: options.effectivePayloadType, address: options.destination.host,
            port: options.destination.port, channels: channels, ssrc: ssrc ?? options.ssrc,
            crypto: options.srtpKey.map { "\($0.profile.rawValue) \($0.inlineKeyParameter)" })
    }

    /// Sends `input` as `options` say; `progress(framesSent)` is called after every frame.
    public static func run(input: String, options: RTPSenderOptions, clock: some MediaClock = WallClock(),
                           progress: (Int) -> Void = { _ in }) async throws -> RTPSendReport {
        let source = try RTPSenderSource(path: input, codec: options.codec, bitrateKbps: options.bitrateKbps, threads: options.threads,
                                         keyframeIntervalSeconds: options.keyframeIntervalSeconds, loops: options.loops)
        var random = RandomSource(seed: options.randomSeed)
        let ssrc = options.ssrc ?? UInt32(truncatingIfNeeded: random.next())
        let srtp = try options.srtpKey.map { try SRTPSession(key: $0, direction: .outbound) }
        let packetizer = try RTPSenderPacketizer(
            codec: options.codec, payloadType: options.effectivePayloadType, ssrc: ssrc,
            initialSequenceNumber: UInt16(truncatingIfNeeded: random.next()),
            timestampOrigin: UInt32(truncatingIfNeeded: random.next()), maxPacketSize: options.mtu, srtp: srtp)
        let rtcp = options.sendsRTCP && options.destination.port < 65_535
            ? try RTPSenderControl(ssrc: ssrc, cname: options.cname, srtpKey: options.srtpKey) : nil
        if let path = options.sdpPath {
            let sdp = sessionDescription(for: options, ssrc: ssrc, channels: source.channels)
            try writeText(sdp.text, to: path)
        }
        let destination = options.destination
        let controlDestination = UDPAddress(host: destination.host, port: destination.port + 1)
        let bindHost = destination.host.contains(":") ? "::" : "0.0.0.0"
        let wallStart = ContinuousClock.now

        var counts = (frames: 0, keyframes: 0, bytes: 0, rtcp: 0)
        var mediaEnd = Timestamp.zero
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: bindHost, port: 0)) { socket in
            var frame = EncodedFrame(codec: options.codec)
            let start = clock.now
            let mapping = NTPClockMapping(unixTimeAtZero: unixTimeNow() - (start - .zero))
            var nextReport = start
            while try source.next(into: &frame) {
                // A frame that starts within half a frame of the limit would end past it.
                if let limit = options.maxDuration, (frame.timestamp + TimeDelta(microseconds: source.frameInterval.microseconds / 2)).seconds > limit {
                    break
                }
                let due = start + (frame.timestamp - .zero)
                if options.isPaced { try await clock.sleep(until: due) }
                let count = try packetizer.packetize(frame, captureTime: options.isPaced ? due : clock.now)
                let spread = options.isPaced && count > 1 ? options.packetSpread : .zero
                for index in 0 ..< count {
                    if spread > .zero && index > 0 {
                        try await clock.sleep(until: due + TimeDelta(microseconds: spread.microseconds * Int64(index) / Int64(count - 1)))
                    }
                    let packet = packetizer.packet(index)
                    try await socket.send(packet, to: destination)
                    counts.bytes += packet.count
                }
                counts.frames += 1
                if frame.isKeyframe && options.codec.isVideo { counts.keyframes += 1 }
                mediaEnd = frame.timestamp + source.frameInterval
                progress(counts.frames)
                if let rtcp, clock.now >= nextReport {
                    try await socket.send(try rtcp.report(packetizer.statistics, now: clock.now, mapping: mapping), to: controlDestination)
                    counts.rtcp += 1
                    nextReport = nextReport + .seconds(1)
                    if nextReport < clock.now { nextReport = clock.now + .seconds(1) }
                }
            }
            if let rtcp, counts.frames > 0 {
                try await socket.send(try rtcp.goodbye(packetizer.statistics, now: clock.now, mapping: mapping), to: controlDestination)
                counts.rtcp += 1
            }
        }
        return RTPSendReport(
            input: input, destination: destination.description, codec: options.codec.rawValue,
            payloadType: Int(options.effectivePayloadType), ssrc: ssrc, srtpProfile: options.srtpKey?.profile.rawValue,
            passThrough: source.isPassThrough, frames: counts.frames, keyframes: counts.keyframes,
            packets: Int(packetizer.statistics.packetsSent), bytes: counts.bytes,
            payloadBytes: Int(packetizer.statistics.octetsSent), rtcpPackets: counts.rtcp,
            mediaSeconds: mediaEnd.seconds, wallSeconds: (ContinuousClock.now - wallStart).seconds, sdpPath: options.sdpPath)
    }

    /// The time since the Unix epoch, for the NTP time in sender reports.
    private static func unixTimeNow() -> TimeDelta {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return TimeDelta(microseconds: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
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
