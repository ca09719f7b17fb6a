import FuzzSupport
// libFuzzer target: parse a compound RTCP packet; whatever parsed must serialize, parse
// again to the same packets, and serialize to the same bytes; a consent check read from it
// must survive its own round trip.
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
    // A consent check read from the packets must travel as it was read.
    if let check = RTCPConsentCheck(packets) {
        guard let bytes = try? RTCPCompound.serialized(check.packets), let back = try? RTCPCompound.parse(bytes) else {
            preconditionFailure("a consent check does not serialize")
        }
        precondition(RTCPConsentCheck(back) == check, "a consent check changed on the way")
    }
    return 0
}

@_cdecl("FuzzRTCP_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
