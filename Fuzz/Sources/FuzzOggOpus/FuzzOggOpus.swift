import FuzzSupport
import ConferMedia
import ConferCodecs

/// Feeds arbitrary bytes to the Ogg Opus reader (page scan, libopusfile, error mapping).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let reader = try OggOpusReader(bytes: bytes)
        while try reader.next() != nil {}
    } catch {}
    return 0
}

@_cdecl("FuzzOggOpus_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
