import ConferCodecs
import ConferJitter
import ConferMedia
import ConferRTP
import Testing

@Suite("H.264 through the video jitter buffer")
struct VideoH264Tests {
    @Test("x264 frames survive reordering; a lost packet stops the chain until the requested IDR, and all delivered frames decode")
    func lossAndRecovery() throws {
        let encoder = try AnyVideoEncoder(codec: .h264, settings: VideoEncoderSettings(width: 160, height: 120, bitrate: 300_000))
        var pattern = TestPatternSource(width: 160, height: 120, colorIndex: 2)
        var payloader = H264Payloader()
        var configuration = VideoJitterBufferConfiguration()
        configuration.nackEnabled = false
        var buffer = try VideoJitterBuffer(codec: .h264, configuration: configuration)
        let decoder = try AnyVideoDecoder(codec: .h264)
        var sequenceNumber: UInt16 = 65_530
        var encoded = EncodedFrame(codec: .h264)
        var delivered: [Timestamp] = []
        var keyframeRequested = false
        var decodedPictures = 0
        var lostFrame = -1

        func handle(_ actions: [VideoJitterBufferAction]) throws {
            for action in actions {
                switch action {
                case .deliver(let frame, _):
                    delivered.append(frame.timestamp)
                    if try decoder.decode(frame) != nil { decodedPictures += 1 }
                case .requestKeyframe:
                    keyframeRequested = true
                default:
                    break
                }
            }
        }

        for index in 0 ..< 40 {
            if keyframeRequested {
                encoder.requestKeyframe()
                keyframeRequested = false
            }
            guard try encoder.encode(pattern.next(), into: &encoded) else { continue }
            var packets = try payloader.markedPayloads(encoded, maxPayloadSize: 300)
            let timestamp = UInt32(index) * 3000
            let now = Timestamp(microseconds: Int64(index) * 33_333) + .milliseconds(20)
            // Reorder inside each frame: the last packet first.
            if packets.count > 1 { packets.swapAt(0, packets.count - 1) }
            for (position, (payload, marker)) in packets.enumerated() {
                let number = sequenceNumber &+ UInt16(position == 0 ? packets.count - 1 : position == packets.count - 1 ? 0 : position)
                // Lose the middle packet of frame 10 (it is several packets long).
                if index == 10 && position == packets.count / 2 && packets.count > 2 {
                    lostFrame = index
                    continue
                }
                try handle(buffer.insert(sequenceNumber: number, timestamp: timestamp, marker: marker,
                                         payload: payload, arrival: now))
            }
            sequenceNumber &+= UInt16(packets.count)
            try handle(buffer.poll(at: now + .milliseconds(20)))
        }
        try handle(buffer.poll(at: .seconds(3)))
        let stats = buffer.statistics
        #expect(lostFrame == 10)
        #expect(stats.pliCount == 1)
        // Frames 0…9 play, 10 is lost, 11 is dropped and asks for a keyframe, which the encoder
        // sends as frame 12 (the request reaches it before it encodes frame 12).
        let frameTimes = delivered.map { Int(($0.microseconds + 1000) / 33_333) }
        #expect(frameTimes == Array(0 ..< 10) + Array(12 ..< 40))
        #expect(stats.framesDropped == 1)
        #expect(decodedPictures == delivered.count)
    }
}
