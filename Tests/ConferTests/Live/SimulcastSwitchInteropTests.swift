import Foundation
import Testing
import ConferCodecs
import ConferMedia
@testable import ConferRTP
@testable import ConferJobs

/// What a participant of the compositing host receives when it is moved between the
/// composite's two encodes (``HostPipelineSmallEncode``): one SSRC whose pictures change
/// size at a keyframe, with sequence numbers and picture ids that run on
/// (``LayerForwarder``). GStreamer and FFmpeg, as receivers, decode every frame across
/// both switches and report nothing missing.
@Suite(.enabled(if: hasGStreamer && hasFFmpeg, "needs gst-launch-1.0 and ffmpeg (Scripts/install-deps)"),
       .serialized, .timeLimit(.minutes(2)))
struct SimulcastSwitchInteropTests {
    static let ssrc: UInt32 = 0x51C0

    /// The clip's 30 frames encoded at 320×240 and at 160×120, each with its own copy of
    /// one RTP writer (as the host does), through a forwarder moved to the small encode at
    /// frame 10 and back at frame 20: the datagrams that participant receives, and the
    /// size of each frame it gets.
    static func packets(of clip: String) throws -> (datagrams: [[UInt8]], sizes: [Int]) {
        let reader = try VideoFileReader(path: clip)
        let large = try VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 320, height: 240, bitrate: 600_000),
                                   allowsFrameDropping: false)
        let small = try VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 160, height: 120, bitrate: 150_000),
                                   allowsFrameDropping: false)
        let pool = FramePool(layout: FrameLayout(width: 160, height: 120), capacity: 2)
        // One SSRC and timestamp base; the small encode's numbers run apart from the large
        // one's, as they do at the host once the two have sent different numbers of packets.
        var writers = [try RTPPacketizer(codec: .vp8, ssrc: ssrc, payloadType: 96, firstSequenceNumber: 65_500, timestampOffset: 1234),
                       try RTPPacketizer(codec: .vp8, ssrc: ssrc, payloadType: 96, firstSequenceNumber: 200, timestampOffset: 1234)]
        var forwarder = LayerForwarder(layer: 0)
        var encoded = [EncodedFrame(codec: .vp8), EncodedFrame(codec: .vp8)]
        var buffer = [UInt8](repeating: 0, count: 1500)
        var datagrams: [[UInt8]] = []
        var sizes: [Int] = []
        var index = 0
        while let frame = try reader.next() {
            if index == 10 { forwarder.targetStream = 1; small.requestKeyframe() }
            if index == 20 { forwarder.targetStream = 0; large.requestKeyframe() }
            #expect(try large.encode(frame, into: &encoded[0]))
            #expect(try small.encode(VideoScaler(filter: .box).scaled(frame, using: pool), into: &encoded[1]))
            forwarder.beginFrameTime(targetHasKeyframe: encoded[Int(forwarder.targetStream)].isKeyframe)
            for stream in 0 ..< 2 {
                if forwarder.beginFrame(stream: UInt8(stream), layer: 0, isSwitchingPoint: false, isKeyframe: encoded[stream].isKeyframe) {
                    sizes.append(stream == 0 ? 320 : 160)
                }
                let headerSize = writers[stream].headerSize
                try buffer.withUnsafeMutableBytes { out in
                    try writers[stream].packetize(encoded[stream], rtpTimestamp: writers[stream].rtpTimestamp(at: frame.timestamp),
                                                  captureTime: frame.timestamp, maxPayloadSize: 1100, into: out) { length in
                        var packet = Array(out[0..<length])
                        // The 15-bit picture id follows the X and I bytes of the descriptor.
                        let id = UInt16(packet[headerSize + 2] & 0x7F) << 8 | UInt16(packet[headerSize + 3])
                        guard let number = forwarder.forward(UInt16(packet[2]) << 8 | UInt16(packet[3]), pictureID: id) else { return }
                        packet[2] = UInt8(number >> 8)
                        packet[3] = UInt8(number & 0xFF)
                        let shifted = LayerForwarder.shifted(id, by: forwarder.pictureIDShift)
                        packet[headerSize + 2] = 0x80 | UInt8(shifted >> 8)
                        packet[headerSize + 3] = UInt8(shifted & 0xFF)
                        datagrams.append(packet)
                    }
                }
            }
            index += 1
        }
        return (datagrams, sizes)
    }

    @Test func theSwitchesHappenAtKeyframesWithNumbersUnbroken() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (datagrams, sizes) = try Self.packets(of: try makeClip(in: dir))
        #expect(sizes.count == 30)
        #expect(sizes.prefix(10).allSatisfy { $0 == 320 } && sizes.suffix(10).allSatisfy { $0 == 320 })
        #expect(sizes.filter { $0 == 160 }.count >= 8)
        let numbers = datagrams.map { UInt16($0[2]) << 8 | UInt16($0[3]) }
        for (previous, next) in zip(numbers, numbers.dropFirst()) { #expect(next == previous &+ 1) }
    }

    @Test func gstreamerDecodesEveryFrameAcrossTheSwitches() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (datagrams, sizes) = try Self.packets(of: try makeClip(in: dir))
        #expect(try await VP8ReceiverPeers.gstreamerFrames(of: datagrams, width: 320, height: 240, in: dir) == sizes.count)
    }

    @Test func ffmpegDecodesEveryFrameAcrossTheSwitches() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let (datagrams, sizes) = try Self.packets(of: clip)
        // FFmpeg hands a frame on when the next one starts, so the last two it is sent are not asked for.
        let wanted = sizes.count - 2
        try await VP8ReceiverPeers.ffmpegDecode(datagrams, frames: wanted, width: 320, height: 240, in: dir)
        let quality = try Comparison.run(reference: clip, test: dir + "/ff.y4m", perFrame: false)
        #expect(quality.testFrames == wanted)
    }
}
