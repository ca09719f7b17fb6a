import FuzzSupport
// libFuzzer target: Opus payloads (RFC 7587). The first input byte picks a mode:
//   0: the rest is one payload, parsed and depacketized alone;
//   1: the rest is split into packets assembled as the receive pipeline assembles them;
//   2: the rest is a frame, packetized and reassembled, which must round-trip exactly.
import ConferMedia
import ConferRTP
import FuzzTraffic

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

@_cdecl("FuzzOpusDepacketizer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
