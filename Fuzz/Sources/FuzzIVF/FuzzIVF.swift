import FuzzSupport
import ConferMedia
import ConferCodecs

/// Feeds arbitrary bytes to the IVF reader and the prober (which takes the skipping path).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let reader = try IVFReader(bytes: bytes)
        var frame = EncodedFrame(codec: reader.header.codec)
        while try reader.read(into: &frame) {}
    } catch {}
    _ = try? MediaFileInfo.probe(bytes: bytes)
    return 0
}

@_cdecl("FuzzIVF_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
