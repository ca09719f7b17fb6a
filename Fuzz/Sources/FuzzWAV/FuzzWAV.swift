import FuzzSupport
import ConferMedia
import ConferCodecs

/// Feeds arbitrary bytes to the WAV reader (with its resampler) and the prober.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let reader = try WAVReader(bytes: bytes)
        var frame = AudioFrame(samples: [], channels: reader.info.channels)
        while try reader.read(into: &frame, frameCount: 480) {}
    } catch {}
    _ = try? MediaFileInfo.probe(bytes: bytes)
    return 0
}

@_cdecl("FuzzWAV_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
