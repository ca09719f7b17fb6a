import FuzzSupport
// libFuzzer target: H264 payloads (RFC 6184). The first input byte picks a mode:
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
    case 0: parseOne(H264Depacketizer(), input)
    case 1: assemble(H264Depacketizer(), input)
    default:
        // The input is NAL units, each a length byte then that many bytes (type forced valid).
        let mtu = 3 + Int(input[0])
        var data: [UInt8] = [], ranges: [Range<Int>] = [], at = 1
        while at < input.count {
            let length = max(1, min(Int(input[at]), input.count - at - 1))
            guard at + 1 + length <= input.count else { break }
            data += [0, 0, 0, 1]
            var nal = Array(input[at + 1..<at + 1 + length])
            // The first is an SPS so the access unit certainly starts there.
            nal[0] = nal[0] & 0xE0 | (ranges.isEmpty ? 7 : max(1, nal[0] % 24))
            ranges.append(data.count..<data.count + nal.count)
            data += nal
            at += 1 + length
        }
        guard !ranges.isEmpty else { return 0 }
        var payloader = H264Payloader()
        roundTrip(&payloader, H264Depacketizer(), EncodedFrame(codec: .h264, data: data, nalUnits: ranges), mtu: mtu)
    }
    return 0
}

@_cdecl("FuzzH264Depacketizer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
