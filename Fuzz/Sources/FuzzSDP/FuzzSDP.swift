import ConferNet
import FuzzSupport

/// Feeds arbitrary text to the SDP reader: it must return a description or throw a
/// SessionDescriptionError, never crash; what it accepts must write and read back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let sdp = try? SessionDescription(parsing: text) {
        precondition(sdp.port >= 0 && sdp.port <= 65535, "port out of range")
        precondition(sdp.payloadType < 128, "payload type out of range")
        // Written out, what was read must read back as the same description: `text` keeps
        // everything the reader took from the input (and, being made from those fields alone,
        // then writes the same text again).
        let written = sdp.text
        guard let reread = try? SessionDescription(parsing: written) else {
            preconditionFailure("the SDP Confer writes does not parse:\n\(written)")
        }
        precondition(reread == sdp, "the SDP read back differs: \(sdp) became \(reread)")
    }
    return 0
}

@_cdecl("FuzzSDP_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
