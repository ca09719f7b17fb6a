import Foundation
import Testing
import ConferCodecs
import ConferMedia
import ConferNet
@testable import ConferRTP
@testable import ConferJobs

/// A VP8 stream with three temporal layers, as the compositing host sends it, read by
/// GStreamer and FFmpeg: whole (TID, TL0PICIDX and Y in every descriptor) and as a
/// receiver given the base layer alone gets it (a quarter of the frames, renumbered, picture
/// ids shifted by ``LayerForwarder``). Both decode every frame they are sent
/// (FFmpeg all but the last, which it holds until another arrives).
@Suite(.enabled(if: hasGStreamer && hasFFmpeg, "needs gst-launch-1.0 and ffmpeg (Scripts/install-deps)"),
       .serialized, .timeLimit(.minutes(2)))
struct LayeredStreamInteropTests {
    static let ssrc: UInt32 = 0x7E4A

    /// The clip's 30 frames encoded in three layers and packetized with the layer fields,
    /// through a forwarder at `layer`: the datagrams a participant at that layer receives.
    static func packets(of clip: String, layer: UInt8) throws -> (datagrams: [[UInt8]], frames: Int) {
        let reader = try VideoFileReader(path: clip)
        let encoder = try VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(
            width: 320, height: 240, bitrate: 600_000, temporalLayers: 3), allowsFrameDropping: false)
        var packetizer = try RTPPacketizer(codec: .vp8, ssrc: ssrc, payloadType: 96, firstSequenceNumber: 65_500,
                                           timestampOffset: 1234, writesTemporalLayers: true)
        var forwarder = LayerForwarder(layer: layer)
        var encoded = EncodedFrame(codec: .vp8)
        var buffer = [UInt8](repeating: 0, count: 1500)
        var datagrams: [[UInt8]] = []
        var frames = 0
        while let frame = try reader.next() {
            #expect(try encoder.encode(frame, into: &encoded))
            let info = try #require(encoded.vp8)
            let forwarded = forwarder.beginFrame(layer: info.temporalLayer, isSwitchingPoint: info.layerSync,
                                                 isKeyframe: encoded.isKeyframe)
            if forwarded { frames += 1 }
            let headerSize = packetizer.headerSize
            try buffer.withUnsafeMutableBytes { out in
                try packetizer.packetize(encoded, rtpTimestamp: packetizer.rtpTimestamp(at: frame.timestamp),
                                         captureTime: frame.timestamp, maxPayloadSize: 1100, into: out) { length in
                    var packet = Array(out[0..<length])
                    guard let number = forwarder.forward(UInt16(packet[2]) << 8 | UInt16(packet[3])) else { return }
                    packet[2] = UInt8(number >> 8)
                    packet[3] = UInt8(number & 0xFF)
                    // The 15-bit picture id follows the X and I/L/T/K bytes of the descriptor.
                    let id = UInt16(packet[headerSize + 2] & 0x7F) << 8 | UInt16(packet[headerSize + 3])
                    let shifted = LayerForwarder.shifted(id, by: forwarder.pictureIDShift)
                    packet[headerSize + 2] = 0x80 | UInt8(shifted >> 8)
                    packet[headerSize + 3] = UInt8(shifted & 0xFF)
                    datagrams.append(packet)
                }
            }
        }
        return (datagrams, frames)
    }

    /// Sends `datagrams` to `port` on loopback, a frame's worth at a time.
    static func send(_ datagrams: [[UInt8]], to port: Int) async throws {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { socket in
            for (index, datagram) in datagrams.enumerated() {
                try await socket.send(datagram, to: UDPAddress(host: "127.0.0.1", port: port))
                if index % 4 == 3 { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }

    @Test(arguments: [UInt8(2), 0])
    func gstreamerDecodesTheLayersItIsSent(layer: UInt8) async throws {
        let dir = try makeTemporaryDirectory()
        let clip = try makeClip(in: dir)
        let (datagrams, frames) = try Self.packets(of: clip, layer: layer)
        #expect(frames == (layer == 2 ? 30 : 8))
        let port = try freeUDPPort()
        let caps = "application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,payload=(int)96"
        let pipeline = "udpsrc address=127.0.0.1 port=\(port) caps=\(caps) ! rtpjitterbuffer latency=1000 ! rtpvp8depay ! "
            + "vp8dec ! videoconvert ! video/x-raw,format=I420 ! filesink location=\(dir)/gst.i420"
        let gst = try BackgroundProcess(["gst-launch-1.0", "-e", "-q"] + pipeline.split(separator: " ").map(String.init),
                                        errorLog: dir + "/gst.log")
        try await waitForUDPPort(port)
        try await Self.send(datagrams, to: port)
        await waitForUDPQueueDrained(port)
        let status = await gst.interrupt(within: 15)
        #expect(status == 0, "gst-launch: \(gst.errors)")
        #expect(try wrapI420(dir + "/gst.i420", width: 320, height: 240, into: dir + "/gst.y4m") == frames)
    }

    @Test(arguments: [UInt8(2), 0])
    func ffmpegDecodesTheLayersItIsSent(layer: UInt8) async throws {
        let dir = try makeTemporaryDirectory()
        let clip = try makeClip(in: dir)
        let (datagrams, frames) = try Self.packets(of: clip, layer: layer)
        let port = try freeUDPPort(evenPair: true)
        let sdp = dir + "/stream.sdp"
        try """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=layers
            c=IN IP4 127.0.0.1
            t=0 0
            m=video \(port) RTP/AVP 96
            a=rtpmap:96 VP8/90000

            """.write(toFile: sdp, atomically: true, encoding: .utf8)
        // FFmpeg hands a frame on when the next one starts, so the last two it is sent are not asked for.
        let wanted = frames - 2
        let ffmpeg = try BackgroundProcess(["ffmpeg", "-v", "error", "-y", "-protocol_whitelist", "file,udp,rtp", "-i", sdp,
                                            "-frames:v", "\(wanted)", "-pix_fmt", "yuv420p", dir + "/ff.y4m"],
                                           errorLog: dir + "/ffmpeg.log")
        try await waitForUDPPort(port)
        try await Self.send(datagrams, to: port)
        let status = await ffmpeg.exitStatus(within: 15)
        #expect(status == 0, "ffmpeg: \(ffmpeg.errors)")
        let quality = try Comparison.run(reference: clip, test: dir + "/ff.y4m", perFrame: false)
        #expect(quality.testFrames == wanted)
        // FFmpeg reports what its depacketizer dropped as lost or corrupt.
        #expect(!ffmpeg.errors.contains("RTP: missed") && !ffmpeg.errors.lowercased().contains("corrupt"), "\(ffmpeg.errors)")
    }
}
