// libFuzzer target: parse a compound RTCP packet; whatever parsed must serialize, parse
// again to the same packets, and serialize to the same bytes.
import ConferRTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let packets = try? RTCPCompound.parse(bytes) else { return 0 }
    let written: [UInt8]
    do {
        written = try RTCPCompound.serialized(packets)
    } catch {
        preconditionFailure("parsed packets do not serialize: \(error)")
    }
    precondition(written.count == RTCPCompound.serializedSize(packets), "size mismatch")
    guard let again = try? RTCPCompound.parse(written) else { preconditionFailure("written compound does not parse") }
    precondition(again == packets, "round trip changed the packets")
    precondition((try? RTCPCompound.serialized(again)) == written, "second serialization differs")
    for case .transportFeedback(let feedback) in packets {
        precondition(feedback.packetResults.count == feedback.packetStatusCount, "results do not cover the count")
    }
    return 0
}

// SwiftPM links executables with `--defsym main=FuzzRTCP_main` (it renames every executable's
// entry point), which leaves libFuzzer's own main unused and the renamed one undefined
// under -parse-as-library. Defining it here and handing control to libFuzzer's driver
// makes the target link and run exactly as libFuzzer's main would.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FuzzRTCP_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, size in fuzz(data, size) }
}
