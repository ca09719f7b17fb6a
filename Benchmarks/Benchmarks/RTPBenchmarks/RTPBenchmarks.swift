// RTP on the per-packet path: header parse and serialize, packetizing frames, frame
// assembly with depacketizing per codec (in the video jitter buffer, as the receive pipeline
// runs it), RTCP compound parsing.
//
// One iteration is one packet. Where the work comes per frame (packetizing, assembling),
// each iteration hands over one packet and the frame's work is paid on the packet that
// starts or completes it, so "Time" and "Malloc (total)" read as per-packet averages
// (the suites run 1000 iterations per sample to average over whole frames).
import Benchmark
import Confer
import ConferJitter
import ConferMedia
import ConferRTP

/// `count` bytes that are never zero (so H.264 data holds no start codes), from a fixed seed.
func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    return (0 ..< count).map { _ in UInt8(truncatingIfNeeded: random.next() % 255 + 1) }
}

/// An encoded frame of `size` bytes that each codec's payloader and depacketizer accept.
func syntheticFrame(_ codec: Codec, size: Int, index: Int) -> EncodedFrame {
    var data = bytes(size, seed: UInt64(index + 1))
    var frame = EncodedFrame(codec: codec, timestamp: .seconds(Double(index) / 30), width: 1280, height: 720)
    switch codec {
    case .vp8:
        data[0] |= 0x01                                     // an inter frame: no picture size to parse
        frame.vp8 = VP8FrameInfo(pictureID: UInt16(index))
    case .vp9:
        frame.vp9 = VP9FrameInfo(pictureID: UInt16(index), interPicturePredicted: true)
    case .h264:
        // One non-IDR slice whose first_mb_in_slice is 0 (ue(v) "1"), after a start code.
        data = [0, 0, 0, 1, 0x41, 0x88] + data.dropFirst(2)
    case .opus:
        data[0] = 0xF8                                      // CELT fullband 20 ms, one frame
    }
    frame.data = data
    return frame
}

/// The payloads (with markers) of `frames` synthetic frames, and which frame each belongs to.
func payloads(_ codec: Codec, frameSize: Int, frames: Int) -> [(payload: [UInt8], marker: Bool, frame: Int)] {
    var result: [(payload: [UInt8], marker: Bool, frame: Int)] = []
    for index in 0 ..< frames {
        let frame = syntheticFrame(codec, size: frameSize, index: index)
        let maxPayload = 1200 - RTPHeader.fixedSize
        let marked: [(payload: [UInt8], marker: Bool)]
        switch codec {
        case .vp8: var p = VP8Payloader(); marked = try! p.markedPayloads(frame, maxPayloadSize: maxPayload)
        case .vp9: var p = VP9Payloader(); marked = try! p.markedPayloads(frame, maxPayloadSize: maxPayload)
        case .h264: var p = H264Payloader(); marked = try! p.markedPayloads(frame, maxPayloadSize: maxPayload)
        case .opus: var p = OpusPayloader(); marked = try! p.markedPayloads(frame, maxPayloadSize: maxPayload)
        }
        // Opus sets no marker; every Opus payload is a whole frame anyway.
        result += marked.map { ($0.payload, $0.marker, index) }
    }
    return result
}

/// Registers "assemble CODEC": one packet into the video jitter buffer the receive pipeline
/// assembles with, in the recorder's configuration (every frame delivered as soon as it is
/// complete, so no render-time wait blurs the figure; the playout path on a real clip is
/// JitterBenchmarks' "insert + poll"), and the frame it completes depacketized.
func assemblyBenchmark(_ codec: Codec, frameSize: Int, label: String) {
    let stream = payloads(codec, frameSize: frameSize, frames: 30)
    let ticksPerFrame = UInt32(codec.rtpClockRate / 30)
    var buffer = try! VideoJitterBuffer(codec: codec, configuration: VideoJitterBufferConfiguration(
        nackEnabled: false, deliversWhenComplete: true))
    var sequence: UInt16 = 0
    var index = 0
    var cycle: UInt32 = 0
    Benchmark("assemble \(label)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            let packet = stream[index]
            let frame = cycle * 30 + UInt32(packet.frame)
            let actions = packet.payload.withUnsafeBytes {
                buffer.insert(sequenceNumber: sequence, timestamp: frame &* ticksPerFrame, marker: packet.marker, payload: $0,
                              arrival: Timestamp(microseconds: Int64(frame) * 33_333))
            }
            for case .deliver(let frame, _) in actions { blackHole(frame.data.count) }
            sequence &+= 1
            index += 1
            if index == stream.count {
                index = 0
                cycle &+= 1
            }
        }
    }
}

/// Registers "depacketize Opus": what the receive pipeline does with an Opus packet before
/// the audio jitter buffer (or the recorder's decoder) takes it: read its TOC, copy its
/// payload into a reused frame. Opus has no frames to assemble: each packet is one.
func opusDepacketizeBenchmark(packetSize: Int) {
    let stream = payloads(.opus, frameSize: packetSize, frames: 30)
    let reader = OpusDepacketizer()
    var frame = EncodedFrame(codec: .opus)
    frame.data.reserveCapacity(packetSize)
    var index = 0
    Benchmark("depacketize Opus \(packetSize) B packets", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            stream[index].payload.withUnsafeBytes { payload in
                frame.data.removeAll(keepingCapacity: true)
                reader.beginFrame(&frame)
                try! reader.append(payload, to: &frame)
                try! reader.endFrame(&frame)
            }
            blackHole(frame.duration)
            index = (index + 1) % stream.count
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    // MARK: Header

    let payload = bytes(1188, seed: 1)
    let plainHeader = RTPHeader(payloadType: 96, sequenceNumber: 4711, timestamp: 90_000, ssrc: 0xC0FFEE, marker: true)
    var extendedHeader = plainHeader
    extendedHeader.extensions = [
        RTPHeaderExtension(id: 1, data: [0x85]),                  // audio level
        RTPHeaderExtension(id: 2, data: [0x12, 0x34, 0x56]),      // abs-send-time
        RTPHeaderExtension(id: 3, data: [0x01, 0x02]),            // transport-wide sequence number
    ]
    for (name, header) in [("", plainHeader), (", 3 extensions", extendedHeader)] {
        var packet = [UInt8](repeating: 0, count: 1500)
        let length = packet.withUnsafeMutableBytes { out in
            payload.withUnsafeBytes { try! header.serialize(into: out, payload: $0) }
        }
        let wire = Array(packet[..<length])
        Benchmark("RTP parse 1200 B\(name) (RTPPacketView)", configuration: .init(scalingFactor: .kilo)) { benchmark in
            wire.withUnsafeBytes { raw in
                for _ in benchmark.scaledIterations {
                    let view = try! RTPPacketView(raw)
                    blackHole(view.sequenceNumber &+ UInt16(truncatingIfNeeded: view.timestamp) &+ UInt16(view.payload.count))
                    if view.hasExtension { blackHole(view.extensionData(id: 3)?.count) }
                }
            }
        }
        var header = header
        Benchmark("RTP serialize 1200 B\(name) into a buffer", configuration: .init(scalingFactor: .kilo)) { benchmark in
            packet.withUnsafeMutableBytes { out in
                payload.withUnsafeBytes { body in
                    for _ in benchmark.scaledIterations {
                        header.sequenceNumber &+= 1
                        blackHole(try! header.serialize(into: out, payload: body))
                    }
                }
            }
        }
    }

    // MARK: Packetizing

    for (name, size) in [("6 KB 720p delta frame", 6_000), ("30 KB keyframe", 30_000)] {
        let frames = (0 ..< 30).map { syntheticFrame(.vp8, size: size, index: $0) }
        // The packetizer SendPipeline and the host run, with their header extensions
        // (transport-wide sequence number, abs-send-time), writing into one send buffer.
        var packetizer = try! RTPPacketizer(codec: .vp8, ssrc: 1, payloadType: 96, firstSequenceNumber: 0, timestampOffset: 0,
                                            transportSequenceNumberID: 3, absoluteSendTimeID: 2)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1200, alignment: 16)
        let maxPayloadSize = 1200 - packetizer.headerSize - 2   // room for RTX's original sequence number
        var packets = 0
        _ = try? packetizer.packetize(frames[0], rtpTimestamp: 0, captureTime: .zero, maxPayloadSize: maxPayloadSize,
                                      into: buffer) { _ in packets += 1 }
        var frameIndex = 0
        Benchmark("VP8 packetize \(name), MTU 1200 (per frame of \(packets) packets)", configuration: .init(scalingFactor: .kilo)) { benchmark in
            for _ in benchmark.scaledIterations {
                try! packetizer.packetize(frames[frameIndex % frames.count], rtpTimestamp: UInt32(frameIndex) &* 3000,
                                          captureTime: .zero, maxPayloadSize: maxPayloadSize, into: buffer) { length in
                    blackHole(length)
                }
                frameIndex += 1
            }
        }
    }

    // MARK: Depacketizing and frame assembly

    assemblyBenchmark(.vp8, frameSize: 6_000, label: "VP8 6 KB frames")
    assemblyBenchmark(.vp9, frameSize: 6_000, label: "VP9 6 KB frames")
    assemblyBenchmark(.h264, frameSize: 6_000, label: "H.264 6 KB frames (FU-A)")
    opusDepacketizeBenchmark(packetSize: 160)

    // MARK: RTCP

    let compound = try! RTCPCompound.serialized([
        .senderReport(RTCPSenderReport(ssrc: 1, ntpTime: NTPTime(seconds: 3_900_000_000, fraction: 12345), rtpTimestamp: 90_000,
                                       packetCount: 1000, octetCount: 1_000_000,
                                       reportBlocks: [RTCPReportBlock(ssrc: 2, fractionLost: 3, cumulativeLost: 10,
                                                                      extendedHighestSequenceNumber: 70_000, jitter: 120)])),
        .sourceDescription(RTCPSourceDescription(ssrc: 1, cname: "confer@example")),
        .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [100, 101, 105, 140])),
    ])
    Benchmark("RTCP parse compound SR+SDES+NACK (\(compound.count) B)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        compound.withUnsafeBytes { raw in
            for _ in benchmark.scaledIterations { blackHole(try! RTCPCompound.parse(raw).count) }
        }
    }
}
