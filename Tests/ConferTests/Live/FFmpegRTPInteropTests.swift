import Foundation
import Testing
@testable import Confer
import ConferMedia
import ConferNet
@testable import ConferLive
@testable import ConferJobs

/// RTP between Confer and FFmpeg over loopback UDP: FFmpeg's RTP muxer into LiveReceiver,
/// and LiveSender into FFmpeg reading the SDP that `confer send` writes.
@Suite(.enabled(if: hasFFmpeg, "needs ffmpeg and ffprobe (Scripts/install-deps installs them)"),
       .serialized, .timeLimit(.minutes(1)))
struct FFmpegRTPInteropTests {
    /// Runs `ffmpeg -re INPUT ARGS -payload_type PT -f rtp` into an LiveReceiver, with FFmpeg's SDP written to `sdp`.
    static func receiveFromFFmpeg(_ codec: Codec, arguments: [String], payloadType: UInt8, output: String,
                                  sdp: String, in dir: String, jitterBuffer: Bool = true) async throws -> LiveReceiveReport {
        var options = loopbackReceiver(codec, output: output, jitterBuffer: jitterBuffer)
        options.payloadType = payloadType
        options.idleTimeout = 1
        return try await receiving(options) { port in
            // RTCP on the RTP port (rtcpport): by default FFmpeg sends it to the port above,
            // which may belong to another test's receiver.
            let ffmpeg = try BackgroundProcess(["ffmpeg", "-v", "error", "-y", "-re"] + arguments
                + ["-payload_type", "\(payloadType)", "-f", "rtp", "rtp://127.0.0.1:\(port)?rtcpport=\(port)", "-sdp_file", sdp],
                errorLog: dir + "/ffmpeg.log")
            let status = await ffmpeg.exitStatus(within: 30)
            #expect(status == 0, "ffmpeg: \(ffmpeg.errors)")
        }
    }

    static let testVideo = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-pix_fmt", "yuv420p"]

    @Test(arguments: [
        ("vp8", ["-c:v", "libvpx", "-deadline", "realtime", "-b:v", "500k"]),
        // FFmpeg's H.264 payloader uses packetization mode 1 with FU-A for large NAL units.
        ("h264", ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-profile:v", "baseline"]),
    ])
    func conferDecodesWhatFFmpegSends(codec: String, encoder: [String]) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try await Self.receiveFromFFmpeg(Codec(rawValue: codec)!, arguments: Self.testVideo + encoder, payloadType: 96,
                                                      output: dir + "/out.y4m", sdp: dir + "/ff.sdp", in: dir)
        #expect(report.lost == 0)
        #expect(report.framesAssembled == 30)
        #expect(report.framesDecoded == 30)
        #expect(report.width == 320 && report.height == 240)
        // FFmpeg's SDP configures a receiver for the same stream.
        let described = try LiveReceiverOptions(sessionDescription: try SessionDescription(
            parsing: String(contentsOfFile: dir + "/ff.sdp", encoding: .utf8)), output: dir + "/again.y4m")
        #expect(described.codec.rawValue == codec)
        #expect(described.effectivePayloadType == 96)
    }

    /// Recorded, every packet decodes and the file keeps RTP time; played out, every packet
    /// plays or comes too late (see ``expectPlayedOut(_:sourceLocation:)``).
    @Test(arguments: [false, true])
    func conferDecodesFFmpegOpus(jitterBuffer: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try await Self.receiveFromFFmpeg(
            .opus, arguments: ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-c:a", "libopus"],
            payloadType: 111, output: dir + "/out.wav", sdp: dir + "/ff.sdp", in: dir, jitterBuffer: jitterBuffer)
        // One second in 20 ms packets, and one more for the encoder's look-ahead.
        #expect((50 ... 51).contains(report.packetsAccepted))
        if jitterBuffer {
            expectPlayedOut(report)
        } else {
            #expect(report.lost == 0)
            #expect(report.framesDecoded == report.packetsAccepted)
            #expect(report.samplesWritten == report.framesDecoded * 960)
        }
        let sdp = try SessionDescription(parsing: String(contentsOfFile: dir + "/ff.sdp", encoding: .utf8))
        #expect(sdp.codec == .opus && sdp.payloadType == 111)
    }

    /// `confer send --sdp` writes an SDP that FFmpeg opens and decodes from — VP9 too: the
    /// descriptor leaves out the layer indices FFmpeg's demuxer misreads.
    @Test(arguments: [Codec.vp8, .vp9, .h264])
    func ffmpegReceivesFromTheSDPConferWrites(codec: Codec) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let port = try freeUDPPort(evenPair: true)
        let sdp = dir + "/stream.sdp"
        // FFmpeg must be listening before the first packet, so it reads the SDP the sender
        // will write (the same text: the SSRC is fixed) ahead of the run, which rewrites it.
        let options = LiveSenderOptions(codec: codec, destination: UDPAddress(host: "127.0.0.1", port: port), ssrc: 0xFACE,
                                       bitrateKbps: 500, sdpPath: sdp, loops: true, maxDuration: 2)
        try LiveSender.sessionDescription(for: options).text.write(toFile: sdp, atomically: true, encoding: .utf8)
        let ffmpeg = try BackgroundProcess(["ffmpeg", "-v", "error", "-y", "-protocol_whitelist", "file,udp,rtp", "-i", sdp,
                                            "-frames:v", "10", "-pix_fmt", "yuv420p", dir + "/ff.y4m"], errorLog: dir + "/ffmpeg.log")
        try await waitForUDPPort(port)
        let sent = try await LiveSender.run(input: clip, options: options)
        #expect(sent.frames == 60)
        #expect(try String(contentsOfFile: sdp, encoding: .utf8) == LiveSender.sessionDescription(for: options).text)
        let status = await ffmpeg.exitStatus(within: 10)
        #expect(status == 0, "ffmpeg: \(ffmpeg.errors)")
        let quality = try Comparison.run(reference: clip, test: dir + "/ff.y4m", perFrame: false)
        #expect(quality.testFrames == 10)
    }
}
