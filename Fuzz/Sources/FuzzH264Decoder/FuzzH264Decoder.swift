import FuzzSupport
import ConferCodecs
import ConferMedia

/// Three real access units (IDR with SPS/PPS, then two P-frames) of a small picture, so the
/// fuzzer's bytes damage a stream libavcodec gets deep into instead of one it rejects at once.
let reference: [EncodedFrame] = {
    guard var encoder = try? X264Encoder(settings: VideoEncoderSettings(width: 64, height: 48, bitrate: 100_000)) else {
        return []
    }
    let pool = FramePool(width: 64, height: 48)
    var frames: [EncodedFrame] = []
    for index in 0..<3 {
        let picture = pool.makeFrame(timestamp: .milliseconds(Int64(index * 33)))
        for y in 0..<48 {
            for x in 0..<64 { picture.y[x, y] = UInt8(truncatingIfNeeded: x * 3 + y * 2 + index * 7) }
        }
        picture.u.fill(110)
        picture.v.fill(140)
        if let encoded = try? encoder.encode(picture.finish()) { frames.append(encoded) }
    }
    return frames
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard var decoder = try? H264Decoder() else { return 0 }
    // The input XORed over the reference stream, past each access unit's first start code.
    var position = 0
    for frame in reference {
        var damaged = frame
        var index = 4
        while index < damaged.data.count && position < bytes.count {
            damaged.data[index] ^= bytes[position]
            index += 1
            position += 1
        }
        _ = try? decoder.decode(damaged)
    }
    // The input as an access unit of its own, after an undamaged IDR.
    if let first = reference.first { _ = try? decoder.decode(first) }
    _ = try? decoder.decode(EncodedFrame(codec: .h264, data: Array(bytes)))
    return 0
}

@_cdecl("FuzzH264Decoder_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
