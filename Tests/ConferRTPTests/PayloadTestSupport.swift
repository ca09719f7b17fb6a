import ConferMedia
import Testing
@testable import ConferRTP

/// The payload size the round-trip tests packetize to.
let testMTU = 1200

/// Frame sizes every codec must survive: tiny, around the MTU, many MTUs, 100 kB.
let roundTripSizes = [1, 100, testMTU - 1, testMTU, testMTU + 1, 10 * testMTU, 100_000]

/// `count` seeded random bytes.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        let word = random.next()
        for shift in stride(from: 0, to: 64, by: 8) where i < count {
            bytes[i] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
            i += 1
        }
    }
    return bytes
}

/// One RTP packet as a receiver sees it.
struct TestPacket {
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var marker: Bool
    var payload: [UInt8]
}

/// Packetizes `frames` into packets with consecutive sequence numbers from `firstSequence`
/// (wrapping early on purpose) and RTP timestamps `timestampStep` apart from `firstTimestamp`.
func packetize<P: Payloader>(_ frames: [EncodedFrame], with payloader: inout P, mtu: Int = testMTU,
                             firstSequence: UInt16 = 65_500, firstTimestamp: UInt32 = 0xFFFF_F000,
                             timestampStep: UInt32 = 3000) throws -> [[TestPacket]] {
    var sequence = firstSequence
    var result: [[TestPacket]] = []
    for (index, frame) in frames.enumerated() {
        let timestamp = firstTimestamp &+ UInt32(index) &* timestampStep
        var packets: [TestPacket] = []
        for (payload, marker) in try payloader.markedPayloads(frame, maxPayloadSize: mtu) {
            packets.append(TestPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: payload))
            sequence &+= 1
        }
        result.append(packets)
    }
    return result
}

/// Reads each frame's packets back with `depacketizer`, as frame assembly in the jitter buffer
/// does: first checking that the payloads themselves say where the frame starts and ends (a
/// partition head first, a partition tail last and nowhere before), then depacketizing them. Each
/// frame's timestamp is its RTP timestamp relative to the first frame's.
func depacketize<D: Depacketizer>(_ frames: [[TestPacket]], with depacketizer: inout D,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> [EncodedFrame] {
    guard let first = frames.first?.first?.timestamp else { return [] }
    return try frames.map { packets in
        for (index, packet) in packets.enumerated() {
            let boundaries = try packet.payload.withUnsafeBytes { bytes throws(PayloadError) in
                try depacketizer.boundaries(of: bytes, marker: packet.marker)
            }
            if index == 0 { #expect(boundaries.isPartitionHead, sourceLocation: sourceLocation) }
            #expect(boundaries.isPartitionTail == (index == packets.count - 1), sourceLocation: sourceLocation)
        }
        let ticks = Int64(Int32(bitPattern: (packets.first?.timestamp ?? first) &- first))
        return try depacketizer.depacketize(packets.map(\.payload), timestamp: .fromTicks(ticks, rate: D.codec.rtpClockRate))
    }
}

/// The error thrown by `body`, if any.
func payloadError(_ body: () throws(PayloadError) -> Void) -> PayloadError? {
    do { try body() } catch { return error }
    return nil
}

/// The error `parse` throws for `bytes`.
func parseError<D: Depacketizer>(_ depacketizer: D, _ bytes: [UInt8]) -> PayloadError? {
    payloadError { () throws(PayloadError) in _ = try depacketizer.parse(bytes) }
}

/// An Annex-B access unit of the given NAL units, each after a 4-byte start code, with its ranges.
func annexB(_ nalUnits: [[UInt8]]) -> (data: [UInt8], ranges: [Range<Int>]) {
    var data: [UInt8] = []
    var ranges: [Range<Int>] = []
    for nal in nalUnits {
        data += [0, 0, 0, 1]
        ranges.append(data.count..<data.count + nal.count)
        data += nal
    }
    return (data, ranges)
}
