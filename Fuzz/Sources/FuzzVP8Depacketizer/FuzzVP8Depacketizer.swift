import FuzzSupport
// libFuzzer target: VP8 payloads (RFC 7741). The first input byte picks a mode:
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
    case 0: parseOne(VP8Depacketizer(), input)
    case 1: assemble(VP8Depacketizer(), input)
    default:
        let mtu = 8 + Int(input[0])
        let body = Array(input.dropFirst())
        guard !body.isEmpty else { return 0 }
        var payloader = VP8Payloader(includesTemporalLayerInfo: input[0] & 1 != 0)
        var frame = EncodedFrame(codec: .vp8, data: body, vp8: VP8FrameInfo(pictureID: UInt16(input[0]) << 7, tl0PictureIndex: 3))
        frame.vp8!.partitionOffsets = [0, body.count / 3, body.count / 2]
        roundTrip(&payloader, VP8Depacketizer(), frame, mtu: mtu)
    }
    return 0
}

@_cdecl("FuzzVP8Depacketizer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
