import ConferJitter
import ConferMedia
import ConferRTP

// What the four depacketizer targets share: one payload parsed every way, packets assembled
// the way the receive pipeline assembles them (a VideoJitterBuffer delivering each frame as
// soon as it is complete, the recorder's configuration; Opus has no frames to assemble, each
// packet is one), and a packetize → assemble round trip.

/// Parses one payload every way the API offers; none may trap.
public func parseOne<D: Depacketizer>(_ depacketizer: D, _ payload: UnsafeRawBufferPointer) {
    _ = try? depacketizer.parse(payload)
    _ = try? depacketizer.boundaries(of: payload, marker: true)
    _ = depacketizer.isPartitionHead(payload)
    _ = depacketizer.isPartitionTail(marker: false, payload: payload)
    var reader = depacketizer
    _ = try? reader.depacketize([Array(payload)])
}

/// A small jitter buffer that assembles `codec` frames as the recorder does.
private func assemblingBuffer(_ codec: Codec, packetCapacity: Int, reorderWindow: Int = 16) -> VideoJitterBuffer? {
    try? VideoJitterBuffer(codec: codec, configuration: VideoJitterBufferConfiguration(
        packetCapacity: packetCapacity, nackEnabled: false, deliversWhenComplete: true, reorderWindow: reorderWindow))
}

/// The frames `actions` deliver.
private func delivered(_ actions: [VideoJitterBufferAction]) -> [EncodedFrame] {
    actions.compactMap { action in
        guard case .deliver(let frame, _) = action else { return nil }
        return frame
    }
}

/// Splits `input` into packets — a length byte, a flags byte (marker, sequence step,
/// timestamp step, and in the top bit "give up what is missing"), then the payload — and
/// assembles them with a small buffer: no frame may come out empty, the buffer may never
/// hold more than its capacity.
public func assemble<D: Depacketizer>(_ depacketizer: D, _ input: UnsafeRawBufferPointer) {
    var buffer = D.codec.isVideo ? assemblingBuffer(D.codec, packetCapacity: 64, reorderWindow: 4) : nil
    var reader = depacketizer
    var at = 0
    var sequence: UInt16 = 65_530
    var timestamp: UInt32 = 0xFFFF_FF00
    var now = Timestamp.zero
    while at + 2 <= input.count {
        let length = min(Int(input[at]), input.count - at - 2)
        let flags = input[at + 1]
        let payload = UnsafeRawBufferPointer(rebasing: input[at + 2..<at + 2 + length])
        at += 2 + length
        sequence &+= UInt16(truncatingIfNeeded: Int(flags >> 1 & 0x07) - 2)
        if flags & 0x30 != 0 { timestamp &+= UInt32(flags >> 4 & 0x03) * 3000 }
        now += .milliseconds(1)
        guard var video = buffer else {
            // Opus: a payload whose boundaries read is a whole frame and depacketizes.
            guard (try? reader.boundaries(of: payload, marker: flags & 1 != 0)) != nil else { continue }
            guard let frame = try? reader.depacketize([Array(payload)]) else { fatalError("a valid payload did not depacketize") }
            if frame.data.isEmpty { fatalError("empty frame emitted") }
            continue
        }
        var frames = delivered(video.insert(sequenceNumber: sequence, timestamp: timestamp, marker: flags & 1 != 0,
                                            payload: payload, arrival: now))
        if flags & 0x80 != 0 {
            now += video.configuration.maxLateness
            frames += delivered(video.poll(at: now))
        }
        if frames.contains(where: \.data.isEmpty) { fatalError("empty frame emitted") }
        if video.bufferedPacketCount > video.packetCapacity { fatalError("buffer over capacity") }
        buffer = video
    }
}

/// Packetizes `frame` and reassembles it; it must come back byte for byte.
public func roundTrip<P: Payloader, D: Depacketizer>(_ payloader: inout P, _ depacketizer: D, _ frame: EncodedFrame, mtu: Int,
                                                     expected: [UInt8]? = nil) {
    guard let packets = try? payloader.markedPayloads(frame, maxPayloadSize: mtu) else { return }
    for (index, packet) in packets.enumerated() {
        if packet.payload.count > mtu { fatalError("payload over maxPayloadSize") }
        if packet.marker != (index == packets.count - 1) && P.codec != .opus { fatalError("marker misplaced") }
    }
    var frames: [EncodedFrame] = []
    if D.codec.isVideo {
        // Room for the whole frame: a tiny payload size can need many packets.
        guard var buffer = assemblingBuffer(D.codec, packetCapacity: packets.count) else { fatalError("no buffer for a video codec") }
        for (index, packet) in packets.enumerated() {
            frames += delivered(buffer.insert(sequenceNumber: UInt16(truncatingIfNeeded: 65_000 + index), timestamp: 7,
                                              marker: packet.marker, payload: packet.payload,
                                              arrival: .milliseconds(Int64(index))))
        }
    } else {
        var reader = depacketizer
        for packet in packets {
            guard let frame = try? reader.depacketize([packet.payload]) else { fatalError("a packet did not depacketize") }
            frames.append(frame)
        }
    }
    guard frames.count == 1, frames[0].data == (expected ?? frame.data) else { fatalError("round trip differs") }
}
