import FuzzSupport
import ConferMedia

/// Parses arbitrary bytes as an SPS NAL unit (type forced to 7, to get past the first check).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var nal = bytes
    if !nal.isEmpty { nal[0] = 0x67 }
    _ = try? H264SPS.parse(nal)
    _ = try? H264SPS.parse(bytes)
    return 0
}

@_cdecl("FuzzH264SPS_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
