// Receive-side per-packet cost: the video jitter buffer (insert + poll + frame delivery),
// NACK bookkeeping, and the audio jitter buffer (insert + one 10 ms pull). One iteration is one
// packet (video, NACK) or one 20 ms Opus packet with two 10 ms pulls (audio).
import Benchmark
import ConferCodecs
import ConferJitter
import ConferMedia
import ConferRTP

/// A VP8 packet of a 10 s clip: RTP fields, payload and arrival time (33 ms per frame, in order).
struct ClipPacket {
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var marker: Bool
    var payload: [UInt8]
    var arrival: Timestamp
}

/// 300 frames of the test card, VP8 640×360 at 800 kbit/s, packetized at MTU 1200.
func vp8Clip() -> [ClipPacket] {
    let source = TestPatternSource(width: 640, height: 360, colorIndex: 4)
    let encoder = try! VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 640, height: 360, bitrate: 800_000),
                                  allowsFrameDropping: false)
    var payloader = VP8Payloader()
    var encoded = EncodedFrame(codec: .vp8)
    var packets: [ClipPacket] = []
    var sequence: UInt16 = 1000
    for index in 0..<300 {
        var frame = source.render(frameIndex: index)
        frame.timestamp = .seconds(Double(index) / 30)
        guard try! encoder.encode(frame, into: &encoded) else { continue }
        for (payload, marker) in try! payloader.markedPayloads(encoded, maxPayloadSize: 1188) {
            packets.append(ClipPacket(sequenceNumber: sequence, timestamp: UInt32(index * 3000), marker: marker,
                                      payload: payload, arrival: .milliseconds(Int64(index) * 33 + 50)))
            sequence &+= 1
        }
    }
    return packets
}

let benchmarks: @Sendable () -> Void = {
    let clip = vp8Clip()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 50,
        maxDuration: .seconds(2),
        // One pass over the clip, without wrapping, so every packet is new to the buffer.
        maxIterations: clip.count - 60
    )

    var buffer = try! VideoJitterBuffer(codec: .vp8)
    var next = 0
    Benchmark("video jitter buffer: insert + poll per packet (VP8 640x360, no loss)") { benchmark in
        for _ in benchmark.scaledIterations {
            let packet = clip[next]
            next += 1
            let inserted = packet.payload.withUnsafeBytes {
                buffer.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                              payload: $0, isRetransmission: false, arrival: packet.arrival)
            }
            blackHole(inserted)
            let actions = buffer.poll(at: packet.arrival)
            for action in actions {
                if case .deliver(let frame, _) = action { buffer.frameDecoded(at: packet.arrival, isKeyframe: frame.isKeyframe) }
            }
            blackHole(actions)
        }
    }

    var nack = NackTracker()
    var sequence: Int64 = 0
    var now = Timestamp.zero
    Benchmark("NACK bookkeeping: one gap of 2 packets per 16, then their recovery") { benchmark in
        for _ in benchmark.scaledIterations {
            // 16 packets with 2 missing, a poll that NACKs them, then the two retransmissions.
            for offset in Int64(0)..<16 where offset != 5 && offset != 6 {
                blackHole(nack.packetArrived(sequence + offset, isRetransmission: false, at: now))
            }
            now += .milliseconds(40)
            blackHole(nack.poll(at: now, retryInterval: .milliseconds(20)))
            blackHole(nack.packetArrived(sequence + 5, isRetransmission: true, at: now))
            blackHole(nack.packetArrived(sequence + 6, isRetransmission: true, at: now))
            sequence += 16
        }
    }

    // Opus: 20 ms packets arriving every 20 ms, pulled every 10 ms.
    var tone = ToneSource(index: 1, pattern: .speech, seed: 9)
    var opus = try! OpusEncoder(settings: AudioEncoderSettings(channels: 1, bitrate: 32_000, frameDurationMs: 20))
    var packet = EncodedFrame(codec: .opus)
    let opusPackets: [[UInt8]] = (0..<1000).map { _ in
        try! opus.encode(tone.next(frameCount: 960), into: &packet)
        return packet.data
    }
    var audio = try! AudioJitterBuffer()
    var pulled = AudioFrame(silenceOf: 480, channels: 1)
    var audioIndex = 0
    Benchmark("audio jitter buffer: insert one 20 ms Opus packet + two 10 ms pulls") { benchmark in
        for _ in benchmark.scaledIterations {
            let arrival = Timestamp.milliseconds(Int64(audioIndex) * 20 + 40)
            blackHole(audio.insert(sequenceNumber: UInt16(truncatingIfNeeded: audioIndex),
                                   rtpTimestamp: UInt32(truncatingIfNeeded: audioIndex * 960),
                                   payload: opusPackets[audioIndex % opusPackets.count], arrival: arrival))
            audio.pull(at: arrival, into: &pulled)
            audio.pull(at: arrival + .milliseconds(10), into: &pulled)
            blackHole(pulled.samples.count)
            audioIndex += 1
        }
    }
}
