import ConferJitter
import ConferMedia
import ConferRTP
import Testing

/// One RTP packet's fields, for feeding a jitter buffer directly.
struct VideoTestPacket {
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var marker: Bool
    var payload: [UInt8]
}

extension VideoJitterBuffer {
    mutating func insert(_ packet: VideoTestPacket, isRetransmission: Bool = false, arrival: Timestamp) -> [VideoJitterBufferAction] {
        insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
               payload: packet.payload, isRetransmission: isRetransmission, arrival: arrival)
    }
}

/// Synthetic VP8 packets with hand-written payload descriptors.
enum VideoPackets {
    /// The VP8 payload of one packet: a descriptor with a 15-bit picture id (and TL0PICIDX,
    /// TID and Y when `layer` is given), then a byte whose low bit is the VP8 P bit, then filler.
    static func payload(pictureID: UInt16, first: Bool, keyframe: Bool,
                        layer: (tl0: UInt8, tid: UInt8, sync: Bool)? = nil, size: Int = 100) -> [UInt8] {
        let descriptor = VP8PayloadDescriptor(startsPartition: first, pictureID: pictureID,
                                              tl0PictureIndex: layer?.tl0, temporalLayer: layer?.tid,
                                              layerSync: layer?.sync ?? false)
        var bytes = [UInt8](repeating: 0, count: descriptor.encodedSize + size)
        let written = bytes.withUnsafeMutableBytes { descriptor.write(to: $0) }
        bytes[written] = keyframe ? 0x00 : 0x01
        return bytes
    }

    /// `count` frames of `packetsPerFrame` packets from sequence number `firstSequenceNumber`,
    /// 3000 ticks (1/30 s) apart; the first frame is a keyframe.
    static func frames(count: Int, packetsPerFrame: Int, firstSequenceNumber: UInt16 = 0,
                       keyframes: Set<Int> = [0], layers: [(tl0: UInt8, tid: UInt8, sync: Bool)]? = nil) -> [[VideoTestPacket]] {
        var sequenceNumber = firstSequenceNumber
        return (0 ..< count).map { index in
            (0 ..< packetsPerFrame).map { part in
                defer { sequenceNumber &+= 1 }
                return VideoTestPacket(
                    sequenceNumber: sequenceNumber, timestamp: UInt32(index) * 3000, marker: part == packetsPerFrame - 1,
                    payload: payload(pictureID: UInt16(index), first: part == 0, keyframe: keyframes.contains(index),
                                     layer: layers?[index]))
            }
        }
    }
}

@Suite("Synthetic VP8 packets")
struct VideoPacketsTests {
    @Test("the synthetic payloads parse as the VP8 descriptors they claim to be")
    func parse() throws {
        let frames = VideoPackets.frames(count: 2, packetsPerFrame: 2, layers: [(5, 0, false), (5, 1, true)])
        for (index, frame) in frames.enumerated() {
            let d = try frame[0].payload.withUnsafeBytes { try VP8PayloadDescriptor.parse($0) }
            #expect(d.startsFrame && d.pictureID == UInt16(index) && d.isKeyframe == (index == 0))
            #expect(d.tl0PictureIndex == 5 && d.temporalLayer == UInt8(index) && d.layerSync == (index == 1))
            let rest = try frame[1].payload.withUnsafeBytes { try VP8PayloadDescriptor.parse($0) }
            #expect(!rest.startsFrame && frame[1].marker)
        }
    }
}
