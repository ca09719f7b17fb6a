import FuzzSupport
// libFuzzer target: Opus payloads (RFC 7587). The first input byte picks a mode:
//   0: the rest is one payload, parsed and depacketized alone;
//   1: the rest is split into packets fed through a FrameAssembler;
//   2: the rest is a frame, packetized and reassembled, which must round-trip exactly.
import ConferMedia
import ConferRTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 3 {
    case 0: parseOne(OpusDepacketizer(), input)
    case 1: assemble(OpusDepacketizer(), input)
    default:
        let mtu = 1 + Int(input[0]) * 4
        var body = Array(input.dropFirst())
        guard !body.isEmpty else { return 0 }
        body[0] &= 0xFC   // code 0: one frame, always a valid packet
        var payloader = OpusPayloader(marksTalkspurts: true)
        roundTrip(&payloader, OpusDepacketizer(), EncodedFrame(codec: .opus, data: body), mtu: mtu)
    }
    return 0
}


/// Parses one payload every way the API offers; none may trap.
func parseOne<D: Depacketizer>(_ depacketizer: D, _ payload: UnsafeRawBufferPointer) {
    _ = try? depacketizer.parse(payload)
    _ = try? depacketizer.boundaries(of: payload, marker: true)
    _ = depacketizer.isPartitionHead(payload)
    _ = depacketizer.isPartitionTail(marker: false, payload: payload)
    var reader = depacketizer
    _ = try? reader.depacketize([Array(payload)])
}

/// Splits `input` into packets — a length byte, a flags byte (marker, sequence step,
/// timestamp step), then the payload — and assembles them with a small buffer.
func assemble<D: Depacketizer>(_ depacketizer: D, _ input: UnsafeRawBufferPointer) {
    var assembler = FrameAssembler(depacketizer: depacketizer, capacity: 16, reorderWindow: 4)
    var at = 0
    var sequence: UInt16 = 65_530
    var timestamp: UInt32 = 0xFFFF_FF00
    while at + 2 <= input.count {
        let length = min(Int(input[at]), input.count - at - 2)
        let flags = input[at + 1]
        let payload = UnsafeRawBufferPointer(rebasing: input[at + 2..<at + 2 + length])
        at += 2 + length
        sequence &+= UInt16(truncatingIfNeeded: Int(flags >> 1 & 0x07) - 2)
        if flags & 0x30 != 0 { timestamp &+= UInt32(flags >> 4 & 0x03) * 3000 }
        _ = assembler.insert(sequenceNumber: sequence, timestamp: timestamp, marker: flags & 1 != 0, payload: payload)
        while let frame = assembler.nextFrame() {
            if frame.data.isEmpty { fatalError("empty frame emitted") }
        }
        if assembler.bufferedPacketCount > assembler.capacity { fatalError("buffer over capacity") }
        if flags & 0x80 != 0 { assembler.skipMissing() }
    }
}

/// Packetizes `frame` and reassembles it; it must come back byte for byte.
func roundTrip<P: Payloader, D: Depacketizer>(_ payloader: inout P, _ depacketizer: D, _ frame: EncodedFrame, mtu: Int,
                                              expected: [UInt8]? = nil) {
    guard let packets = try? payloader.markedPayloads(frame, maxPayloadSize: mtu) else { return }
    for (index, packet) in packets.enumerated() {
        if packet.payload.count > mtu { fatalError("payload over maxPayloadSize") }
        if packet.marker != (index == packets.count - 1) && P.codec != .opus { fatalError("marker misplaced") }
    }
    // Room for the whole frame: a tiny payload size can need more packets than the default 512.
    var assembler = FrameAssembler(depacketizer: depacketizer, capacity: packets.count)
    var frames: [EncodedFrame] = []
    for (index, packet) in packets.enumerated() {
        _ = assembler.insert(sequenceNumber: UInt16(truncatingIfNeeded: 65_000 + index), timestamp: 7,
                             marker: packet.marker || P.codec == .opus, payload: packet.payload)
        while let frame = assembler.nextFrame() { frames.append(frame) }
    }
    guard frames.count == 1, frames[0].data == (expected ?? frame.data) else { fatalError("round trip differs") }
}

@_cdecl("FuzzOpusDepacketizer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
