import FuzzSupport
// libFuzzer target: RTCP Extended Reports (RFC 3611). The input is read both as a compound
// (as the receive and send pipelines read it) and, behind a made-up XR common header, as the
// body of one XR packet, so mutations reach the block walk without first having to keep a
// valid RTCP header and length. Whatever parses must serialize, parse again to the same
// report and serialize to the same bytes (not the input's: the reserved byte of RRTR and
// DLRR blocks is written as zero); RRTR and DLRR blocks must be read as such exactly when
// their length is the one RFC 3611 gives them, every other block kept as its bytes.
import ConferRTP
import FuzzTraffic

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let packets = try? RTCPCompound.parse(bytes) {
        for case .extendedReport(let report) in packets { check(report) }
    }
    // The body as one XR packet: the header's length counts whole words, so a body that is
    // not one is cut to the last whole word.
    let words = min(size / 4, 0xFFFF)
    guard words > 0 else { return 0 }
    var packet = [0x80, RTCPExtendedReport.packetType, UInt8(words >> 8), UInt8(words & 0xFF)]
    packet += bytes.prefix(4 * words)
    guard let parsed = try? RTCPCompound.parse(packet) else { return 0 }
    require(parsed.count == 1, "one XR header gave \(parsed.count) packets")
    guard case .extendedReport(let report) = parsed[0] else { fail("an XR header gave \(parsed[0])") }
    check(report)
    return 0
}

/// The report writes, reads back the same and writes the same bytes again; blocks read as
/// RRTR or DLRR only in the sizes those have.
private func check(_ report: RTCPExtendedReport) {
    for block in report.blocks {
        if case .other(let type, _, let contents) = block {
            require(contents.count % 4 == 0, "a kept block of \(contents.count) bytes is not whole words")
            require(!(type == RTCPExtendedReport.rrtrBlockType && contents.count == 8)
                    && !(type == RTCPExtendedReport.dlrrBlockType && contents.count % 12 == 0),
                    "a block of type \(type) and \(contents.count) bytes was kept as bytes, not read")
        }
    }
    let written: [UInt8]
    do {
        written = try RTCPCompound.serialized([.extendedReport(report)])
    } catch {
        fail("a parsed XR does not serialize: \(error)")
    }
    require(written.count == report.serializedSize, "size mismatch")
    guard let again = try? RTCPCompound.parse(written), again == [.extendedReport(report)] else {
        fail("a written XR does not parse back to the same report")
    }
    require((try? RTCPCompound.serialized(again)) == written, "second serialization differs")
}

@_cdecl("FuzzRTCPExtendedReport_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
