import ArgumentParser
import Synchronization
import Confer
import ConferMedia
import ConferNet
import ConferSRTP
import ConferLive

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a media file as one RTP (or SRTP) stream over UDP, in real time.",
        discussion: """
        .y4m and .wav are encoded live with --codec; .ivf and .h264 already in that codec go out as they are; other
        inputs are decoded and encoded again. --sdp writes the stream's SDP before the first packet, for a receiver:
          confer send clip.y4m --codec vp8 --to 127.0.0.1:5004 --sdp stream.sdp
          ffplay -protocol_whitelist file,udp,rtp stream.sdp
        The receiver's RTCP is read on the sending socket and answered: NACK with retransmissions (RTX, payload
        type one above the media's), PLI/FIR with a keyframe, transport-cc and receiver reports with a lower
        bitrate under congestion (never above --bitrate). Sender reports, CNAME and BYE go to the port above the
        RTP port, or to the RTP port once the receiver's RTCP comes from there (as `confer receive`'s does).
        """)

    @Argument(help: "The input file (.y4m, .wav, .ivf, .h264, .opus).")
    var input: String
    @Option(help: "Codec on the wire: vp8, vp9, h264 or opus.")
    var codec: Codec
    @Option(name: .customLong("to"), help: "Destination HOST:PORT for RTP.")
    var destination: String
    @Option(help: "RTP payload type (default 96 for video, 111 for Opus).")
    var payloadType: Int?
    @Option(help: "SSRC (default: random).")
    var ssrc: UInt32?
    @Option(help: "Largest UDP payload in bytes: RTP header, payload and SRTP tag.")
    var mtu = 1200
    @Option(help: "Encoder bitrate in kbit/s, when the input is encoded.")
    var bitrate: Int?
    @Option(help: "SRTP key as PROFILE:BASE64, such as AES_CM_128_HMAC_SHA1_80:<30 bytes of key and salt in base64>.")
    var srtp: String?
    @Option(help: "Write the stream's SDP to this file before sending.")
    var sdp: String?
    @Flag(help: "Start the file again at its end (stop with --duration or Ctrl-C).")
    var loop = false
    @Option(help: "Stop after this many seconds of media.")
    var duration: Double?
    @Flag(help: "Send no RTCP.")
    var noRtcp = false
    @Flag(help: "Send RTCP to the RTP port from the start (RFC 5761; a=rtcp-mux in the SDP), not the port above.")
    var rtcpMux = false
    @Option(help: "Spread each video frame's packets over this many milliseconds instead of one burst.")
    var spreadMs: Double = 0
    @Flag(inversion: .prefixedNo, help: "Pace video packets at 2.5 × the congestion controller's target (the default without --spread-ms), or send a frame at a time.")
    var pacing: Bool?
    @Flag(help: "Let the encoder skip frames to hold the congestion controller's target, as a camera sender does (by default every frame is sent).")
    var dropFrames = false
    @Option(help: ArgumentHelp("Start the encoder at this many kbit/s and probe up to --bitrate (padding on the RTX stream; needs a receiver that sends transport-cc, as confer receive does).", valueName: "KBPS"))
    var startBitrate: Int?
    @Option(help: "Seconds between keyframes when the input is encoded (0: only the first, and on request).")
    var keyframeInterval: Double = 2
    @Option(help: "Seconds to keep answering the receiver's feedback after the last frame (when it sends any).")
    var linger: Double = 0.3
    @OptionGroup var outputOptions: LiveOutputOptions

    func validate() throws {
        guard UDPAddress(parsing: destination) != nil else { throw ValidationError("--to must be HOST:PORT, such as 127.0.0.1:5004") }
        try OptionCheck.payloadType(payloadType)
        if !(200...65_507).contains(mtu) { throw ValidationError("--mtu must be 200…65507") }
        try OptionCheck.bitrate(bitrate)
        try OptionCheck.positiveDuration(duration)
        if !(0...100).contains(spreadMs) { throw ValidationError("--spread-ms must be 0…100") }
        if pacing == true && spreadMs > 0 { throw ValidationError("--pacing and --spread-ms both space a frame's packets: choose one") }
        try OptionCheck.bitrate(startBitrate, name: "--start-bitrate")
        if let startBitrate, let bitrate, startBitrate > bitrate {
            throw ValidationError("--start-bitrate (\(startBitrate)) must not be above --bitrate (\(bitrate))")
        }
        if startBitrate != nil && codec == .opus { throw ValidationError("--start-bitrate is for video; Opus starts at --bitrate") }
        if !(0...3600).contains(keyframeInterval) { throw ValidationError("--keyframe-interval is in seconds, 0…3600") }
        if !(0...60).contains(linger) { throw ValidationError("--linger is in seconds, 0…60") }
    }

    func run() async throws {
        let key = try srtp.map { text in
            do { return try SRTPMasterKey(commandLineForm: text) } catch { throw ValidationError("--srtp: \(error)") }
        }
        let options = LiveSenderOptions(
            codec: codec, destination: UDPAddress(parsing: destination)!, payloadType: payloadType.map { UInt8($0) }, ssrc: ssrc,
            mtu: mtu, bitrateKbps: bitrate, srtpKey: key, sdpPath: sdp, loops: loop, maxDuration: duration,
            sendsRTCP: !noRtcp, packetSpread: .seconds(spreadMs / 1000), paces: pacing ?? (spreadMs == 0), dropsFrames: dropFrames, startBitrateKbps: startBitrate,
            keyframeIntervalSeconds: keyframeInterval, linger: linger, rtcpMux: rtcpMux)
        let printer = outputOptions.printer()
        let progress = outputOptions.progress("send")
        // Ctrl-C (or SIGTERM) ends the media the way the end of the file does: the receiver's
        // feedback answered a little longer, a BYE, then the summary. A second one ends at once.
        let interrupted = Mutex(false)
        let watcher = Task {
            await InterruptSignal.wait()
            if !Task.isCancelled { interrupted.withLock { $0 = true } }
        }
        defer { watcher.cancel() }
        let report = try await LiveSender.run(input: input, options: options, stopRequested: { interrupted.withLock { $0 } },
                                              progress: { progress.update($0, of: nil) }, second: { printer.print("second", Self.figures($0)) })
        progress.finish()
        try outputOptions.finish(report, printer: printer)
    }

    /// What `--events` says each second: the totals so far and the last second's rates.
    static func figures(_ report: LiveSendReport) -> [String: Any] {
        var fields: [String: Any] = [
            "second": report.timeline.count, "ssrc": report.ssrc, "frames": report.frames, "keyframes": report.keyframes,
            "packets": report.packets, "bytes": report.bytes, "rtcpPacketsReceived": report.rtcpPacketsReceived,
            "nacksReceived": report.nacksReceived, "retransmissionsSent": report.retransmissionsSent,
            "keyframeRequestsReceived": report.keyframeRequestsReceived,
        ]
        if let last = report.timeline.last {
            fields["sentKbps"] = last.sentKbps
            fields["targetKbps"] = last.targetKbps
        }
        if let rtt = report.roundTripTime { fields["rttMs"] = (rtt * 10_000).rounded() / 10 }
        return fields
    }
}

extension LiveSendReport: CommandReport {
    var humanSummary: [String] {
        var lines = ["\(input) → \(destination): \(codec), payload type \(payloadType), SSRC \(ssrc)"
                     + (srtpProfile.map { ", SRTP \($0)" } ?? "") + (passThrough ? ", sent as stored" : "")]
        lines += table([
            ["frames", "keyframes", "packets", "bytes", "payload bytes", "RTCP", "media s", "wall s"],
            ["\(frames)", "\(keyframes)", "\(packets)", "\(bytes)", "\(payloadBytes)", "\(rtcpPackets)",
             fixed(mediaSeconds, 2), fixed(wallSeconds, 2)],
        ]).map { "  " + $0 }
        if rtcpPacketsReceived > 0 {
            lines += table([
                ["RTCP in", "NACKs", "retransmitted", "keyframe requests", "keyframes on request", "target kbit/s", "RTT ms"],
                ["\(rtcpPacketsReceived)" + (rtcpMultiplexed ? " (mux)" : ""), "\(nacksReceived)", "\(retransmissionsSent)",
                 "\(keyframeRequestsReceived)", "\(keyframesOnRequest)", finalTargetBitrate.map { "\($0 / 1000)" } ?? "-",
                 roundTripTime.map { fixed($0 * 1000, 1) } ?? "-"],
            ]).map { "  " + $0 }
        }
        if let video = pipeline.video, video.framesDroppedByEncoder + video.framesSkippedForFrameRate > 0 {
            lines.append("  frames the encoder skipped to hold its target: \(video.framesDroppedByEncoder)"
                         + (video.framesSkippedForFrameRate > 0 ? ", and \(video.framesSkippedForFrameRate) for half the frame rate" : ""))
        }
        if timeline.count > 1, rtcpPacketsReceived > 0 {
            lines.append("  target kbit/s each second" + (paced ? " (paced)" : "") + ": "
                         + timeline.map { "\($0.targetKbps)" }.joined(separator: " "))
        }
        if let sdpPath { lines.append("  SDP: \(sdpPath)") }
        return lines
    }
}
