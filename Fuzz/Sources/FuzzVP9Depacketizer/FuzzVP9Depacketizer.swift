import FuzzSupport
// libFuzzer target: VP9 payloads (RFC 9628). The first input byte picks a mode:
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
    case 0: parseOne(VP9Depacketizer(), input)
    case 1: assemble(VP9Depacketizer(), input)
    default:
        let mtu = 16 + Int(input[0])
        let body = Array(input.dropFirst())
        guard !body.isEmpty else { return 0 }
        var payloader = VP9Payloader(includesLayerIndices: input[0] & 1 != 0)
        let keyframe = input[0] & 2 != 0
        let frame = EncodedFrame(codec: .vp9, data: body, isKeyframe: keyframe, width: 320, height: 240,
                                 vp9: VP9FrameInfo(pictureID: UInt16(input[0]) << 7, interPicturePredicted: !keyframe))
        roundTrip(&payloader, VP9Depacketizer(), frame, mtu: mtu)
    }
    return 0
}

@_cdecl("FuzzVP9Depacketizer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
