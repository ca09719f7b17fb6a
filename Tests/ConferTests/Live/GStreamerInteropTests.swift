import Foundation
import Testing
@testable import Confer
import ConferMedia
import ConferNet
import ConferSRTP
@testable import ConferLive
@testable import ConferJobs

/// Whether gst-launch and the plugins these tests use are installed (Scripts/install-deps).
let hasGStreamer = toolExists("gst-launch-1.0")
    && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstsrtp.so")

/// RTP and SRTP between Confer and GStreamer over loopback UDP, both ways.
///
/// GStreamer decodes to raw I420 through filesink rather than y4menc: GStreamer 1.22's
/// y4menc writes decoder buffers with padded strides as they are (and a 0:1 frame rate
/// when RTP caps carry none), which no Y4M reader can take.
@Suite(.enabled(if: hasGStreamer, "needs gst-launch-1.0 with gst-plugins-good/bad/ugly and gst-libav"),
       .serialized, .timeLimit(.minutes(1)))
struct GStreamerInteropTests {
    static func depayloader(_ codec: Codec) -> (name: String, chain: String) {
        switch codec {
        case .vp8: ("VP8", "rtpvp8depay ! vp8dec")
        case .vp9: ("VP9", "rtpvp9depay ! vp9dec")
        case .h264: ("H264", "rtph264depay ! avdec_h264")
        case .opus: ("OPUS", "rtpopusdepay ! opusdec")
        }
    }

    /// srtpenc/srtpdec names of a profile's RTP and RTCP cipher and auth.
    static func gstNames(_ profile: SRTPProfile) -> (cipher: String, auth: String, rtcpCipher: String, rtcpAuth: String) {
        switch profile {
        case .aes128CmHmacSha1_80: ("aes-128-icm", "hmac-sha1-80", "aes-128-icm", "hmac-sha1-80")
        case .aes128CmHmacSha1_32: ("aes-128-icm", "hmac-sha1-32", "aes-128-icm", "hmac-sha1-80")
        case .aeadAes128Gcm: ("aes-128-gcm", "null", "aes-128-gcm", "null")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The srtpdec caps fields for `key`, to put before the RTP caps.
    static func srtpCaps(_ key: SRTPMasterKey, ssrc: UInt32) -> String {
        let names = gstNames(key.profile)
        return "application/x-srtp,ssrc=(uint)\(ssrc),srtp-key=(buffer)\(hex(key.keyingMaterial)),"
            + "srtp-cipher=(string)\(names.cipher),srtp-auth=(string)\(names.auth),"
            + "srtcp-cipher=(string)\(names.rtcpCipher),srtcp-auth=(string)\(names.rtcpAuth),"
    }

    /// Starts gst-launch receiving `codec` on `port` into `output`, sends `input` with
    /// LiveSender in real time, then ends GStreamer with EOS once it has read every datagram.
    static func sendToGStreamer(_ codec: Codec, input: String, output: String, key: SRTPMasterKey? = nil,
                                in dir: String) async throws -> LiveSendReport {
        let port = try freeUDPPort()
        let ssrc: UInt32 = 0x5EED
        let (name, chain) = depayloader(codec)
        let media = codec.isVideo ? "video" : "audio"
        let rtpCaps = "media=(string)\(media),clock-rate=(int)\(codec.rtpClockRate),encoding-name=(string)\(name),"
            + "payload=(int)\(LiveSender.defaultPayloadType(for: codec))"
        let caps = key.map { srtpCaps($0, ssrc: ssrc) + rtpCaps } ?? "application/x-rtp," + rtpCaps
        let sink = codec.isVideo
            ? "videoconvert ! video/x-raw,format=I420 ! filesink location=\(output)"
            : "audioconvert ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! wavenc ! filesink location=\(output)"
        // A generous jitter-buffer latency: on a busy machine (the suite runs tests side by side)
        // gst-launch can be kept off the cores long enough that packets look late at 100 ms and
        // are dropped; the end of stream (-e) pushes out whatever is still held.
        let pipeline = "udpsrc address=127.0.0.1 port=\(port) caps=\(caps) ! " + (key == nil ? "" : "srtpdec ! ")
            + "rtpjitterbuffer latency=1000 ! \(chain) ! \(sink)"
        let gst = try BackgroundProcess(["gst-launch-1.0", "-e", "-q"] + pipeline.split(separator: " ").map(String.init),
                                        errorLog: dir + "/gst.log")
        try await waitForUDPPort(port)
        let sent = try await LiveSender.run(input: input, options: LiveSenderOptions(
            codec: codec, destination: UDPAddress(host: "127.0.0.1", port: port), ssrc: ssrc, bitrateKbps: 500, srtpKey: key,
            // This pipeline reads RTP only: sender reports would go to the port above, which
            // may belong to another test running alongside.
            sendsRTCP: false))
        await waitForUDPQueueDrained(port)
        let status = await gst.interrupt(within: 15)
        #expect(status == 0, "gst-launch: \(gst.errors)")
        return sent
    }

    /// Runs `pipeline` (ending in a payloader) into a udpsink aimed at an LiveReceiver and returns its report.
    static func receiveFromGStreamer(_ codec: Codec, pipeline: String, output: String, key: SRTPMasterKey? = nil,
                                     payloadType: UInt8? = nil, in dir: String, jitterBuffer: Bool = true) async throws -> LiveReceiveReport {
        var options = loopbackReceiver(codec, output: output, key: key, jitterBuffer: jitterBuffer)
        options.payloadType = payloadType
        options.idleTimeout = 1
        return try await receiving(options) { port in
            let gst = try BackgroundProcess(["gst-launch-1.0", "-q"] + (pipeline + " ! udpsink host=127.0.0.1 port=\(port)")
                .split(separator: " ").map(String.init), errorLog: dir + "/gst.log")
            let status = await gst.exitStatus(within: 30)
            #expect(status == 0, "gst-launch: \(gst.errors)")
        }
    }

    static let testVideo = "videotestsrc num-buffers=30 ! video/x-raw,format=I420,width=320,height=240,framerate=30/1"

    // MARK: Confer → GStreamer

    @Test(arguments: [Codec.vp8, .vp9, .h264])
    func gstreamerDecodesWhatConferSends(codec: Codec) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let sent = try await Self.sendToGStreamer(codec, input: clip, output: dir + "/gst.i420", in: dir)
        #expect(sent.frames == 30)
        #expect(try wrapI420(dir + "/gst.i420", width: 320, height: 240, into: dir + "/gst.y4m") == 30)
        let quality = try Comparison.run(reference: clip, test: dir + "/gst.y4m", perFrame: false)
        #expect(quality.summary.meanPSNR.y >= 30)
    }

    @Test func gstreamerDecodesConferOpus() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = dir + "/tone.wav"
        _ = try Generator.run(output: tone, seconds: 1, index: 2)
        let sent = try await Self.sendToGStreamer(.opus, input: tone, output: dir + "/gst.wav", in: dir)
        #expect(sent.frames == 50)
        let samples = try AudioFileReader(path: dir + "/gst.wav").frameCount ?? 0
        #expect(abs(samples - 48_000) <= 960, "\(samples) samples")
        #expect(try Demo.audioCorrelation(tone, dir + "/gst.wav") > 0.9)
    }

    @Test(arguments: [SRTPProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func srtpdecDecryptsWhatConferProtects(profile: SRTPProfile) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let sent = try await Self.sendToGStreamer(.vp8, input: clip, output: dir + "/gst.i420", key: testKey(profile), in: dir)
        #expect(sent.srtpProfile == profile.rawValue)
        #expect(try wrapI420(dir + "/gst.i420", width: 320, height: 240, into: dir + "/gst.y4m") == 30)
        #expect(try Comparison.run(reference: clip, test: dir + "/gst.y4m", perFrame: false).summary.meanPSNR.y >= 30)
    }

    // MARK: GStreamer → Confer

    @Test(arguments: [
        ("vp8", "vp8enc deadline=1 ! rtpvp8pay pt=96"),
        ("vp9", "vp9enc deadline=1 cpu-used=8 ! rtpvp9pay pt=96"),
        // zero-latency aggregation puts SPS, PPS and small slices in STAP-A packets
        ("h264", "x264enc tune=zerolatency ! rtph264pay pt=96 aggregate-mode=zero-latency config-interval=-1"),
        ("h264", "x264enc tune=zerolatency ! rtph264pay pt=96 config-interval=-1"),
    ])
    func conferDecodesWhatGStreamerSends(codec: String, encoder: String) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try await Self.receiveFromGStreamer(
            Codec(rawValue: codec)!, pipeline: Self.testVideo + " ! " + encoder, output: dir + "/out.y4m", in: dir)
        #expect(report.lost == 0)
        #expect(report.framesAssembled == 30)
        #expect(report.framesDecoded == 30)
        #expect(report.framesWritten == 30)
        #expect(report.width == 320 && report.height == 240)
    }

    /// Recorded, every packet decodes and the file keeps RTP time; played out, every packet
    /// plays or comes too late (opusenc's last, sent at the end of the stream, may; see
    /// ``expectPlayedOut(_:sourceLocation:)``).
    @Test(arguments: [false, true])
    func conferDecodesGStreamerOpus(jitterBuffer: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 50 buffers of 960 samples make 50 packets of 20 ms (opusenc adds one for its look-ahead).
        let report = try await Self.receiveFromGStreamer(.opus, pipeline: "audiotestsrc num-buffers=50 samplesperbuffer=960 ! "
            + "audio/x-raw,rate=48000,channels=1 ! opusenc frame-size=20 ! rtpopuspay pt=111", output: dir + "/out.wav", in: dir,
            jitterBuffer: jitterBuffer)
        #expect((50 ... 51).contains(report.packetsAccepted))
        if jitterBuffer {
            expectPlayedOut(report)
        } else {
            #expect(report.lost == 0)
            #expect(report.framesDecoded == report.packetsAccepted)
            #expect(report.samplesWritten == report.framesDecoded * 960)
        }
        #expect(try AudioFileReader(path: dir + "/out.wav").frameCount == report.samplesWritten)
    }

    @Test(arguments: [SRTPProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func conferDecryptsWhatSrtpencProtects(profile: SRTPProfile) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = testKey(profile, seed: 9)
        let names = Self.gstNames(profile)
        let report = try await Self.receiveFromGStreamer(.vp8, pipeline: Self.testVideo + " ! vp8enc deadline=1 ! rtpvp8pay pt=96 ssrc=77 ! "
            + "application/x-rtp ! srtpenc key=\(Self.hex(key.keyingMaterial)) rtp-cipher=\(names.cipher) rtp-auth=\(names.auth) "
            + "rtcp-cipher=\(names.rtcpCipher) rtcp-auth=\(names.rtcpAuth)", output: dir + "/out.y4m", key: key, in: dir)
        #expect(report.srtpAuthenticationFailures == 0)
        #expect(report.framesDecoded == 30)
    }

    @Test func srtpencWithAnotherKeyIsRejected() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = Self.gstNames(.aes128CmHmacSha1_80)
        let report = try await Self.receiveFromGStreamer(.vp8, pipeline: Self.testVideo + " ! vp8enc deadline=1 ! rtpvp8pay pt=96 ! "
            + "application/x-rtp ! srtpenc key=\(Self.hex(testKey(seed: 1).keyingMaterial)) rtp-cipher=\(names.cipher) "
            + "rtp-auth=\(names.auth) rtcp-cipher=\(names.rtcpCipher) rtcp-auth=\(names.rtcpAuth)",
            output: dir + "/out.y4m", key: testKey(seed: 2), in: dir)
        #expect(report.datagrams > 30)
        #expect(report.srtpAuthenticationFailures == report.datagrams)
        #expect(report.framesAssembled == 0 && report.framesDecoded == 0)
    }
}
