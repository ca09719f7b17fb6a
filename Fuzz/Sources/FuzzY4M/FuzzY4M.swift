import FuzzSupport
import ConferMedia
import ConferCodecs

/// Feeds arbitrary bytes to the Y4M reader and the prober; any error is fine, a crash is not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let reader = try Y4MReader(bytes: bytes)
        while let frame = try reader.next() { _ = frame.y[0, 0] }
    } catch {}
    _ = try? MediaFileInfo.probe(bytes: bytes)
    return 0
}

@_cdecl("FuzzY4M_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
