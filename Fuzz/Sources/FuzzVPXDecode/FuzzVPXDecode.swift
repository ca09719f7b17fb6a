import FuzzSupport
import ConferCodecs
import ConferMedia

/// A clean keyframe and inter frame per codec (index 0 VP8, 1 VP9), made once. Fuzzed frames
/// follow a real keyframe so they reach libvpx past the decoder's "wait for a keyframe" gate,
/// and mutations of real frames reach far deeper into the bitstream than random bytes.
let seedStreams: [[[UInt8]]] = [Codec.vp8, .vp9].map { codec in
    let settings = VideoEncoderSettings(width: 64, height: 48, bitrate: 200_000)
    var encoder = try! VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
    return (0..<2).map { index in
        let picture = MutableVideoFrame(layout: FrameLayout(width: 64, height: 48), timestamp: .milliseconds(Int64(index) * 33))
        for y in 0..<48 { for x in 0..<64 { picture.y[x, y] = UInt8(truncatingIfNeeded: x * 3 + y * 2 + index * 5) } }
        picture.u.fill(100)
        picture.v.fill(150)
        return try! encoder.encode(picture.finish())!.data
    }
}

/// Input: byte 0 picks the codec (bit 0) and the mode (bits 1–2); the rest is the payload.
///   mode 0: payload split into frames by 2-byte little-endian lengths, after a real keyframe;
///   mode 1: the real keyframe XORed with the payload, cut to the payload's length if shorter;
///   mode 2: the real inter frame XORed with the payload, after the real keyframe.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let codecIndex = Int(input[0] & 1)
    let codec: Codec = codecIndex == 0 ? .vp8 : .vp9
    let (keyframe, interFrame) = (seedStreams[codecIndex][0], seedStreams[codecIndex][1])
    let payload = input.dropFirst()
    guard let decoder = try? VPXDecoder(codec: codec) else { return 0 }

    func decode(_ bytes: [UInt8]) {
        if let picture = try? decoder.decode(EncodedFrame(codec: codec, data: bytes)) {
            // Touch the corners so the sanitizer sees any out-of-bounds plane.
            let y = picture.y
            _ = y[0, 0] &+ y[y.width - 1, y.height - 1] &+ picture.v[picture.v.width - 1, picture.v.height - 1]
        }
    }
    func xored(_ frame: [UInt8]) -> [UInt8] {
        var out = frame
        for (i, byte) in payload.enumerated() where i < out.count { out[i] ^= byte }
        if payload.count < out.count && payload.count > 8 { out.removeLast(out.count - payload.count) }
        return out
    }

    switch (input[0] >> 1) & 3 {
    case 0:
        decode(keyframe)
        var rest = payload[...]
        while rest.count >= 2 {
            let length = Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8
            rest = rest.dropFirst(2)
            let frame = Array(rest.prefix(length))
            rest = rest.dropFirst(frame.count)
            if !frame.isEmpty { decode(frame) }
        }
    case 1:
        decode(xored(keyframe))
        decode(interFrame)
    default:
        decode(keyframe)
        decode(xored(interFrame))
        decode(keyframe)
    }
    return 0
}

@_cdecl("FuzzVPXDecode_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
