import FuzzSupport
import FuzzTraffic
import ConferSRTP

// One session per profile and direction for the whole run, as a receiver keeps them: the
// fuzzer also explores replay windows and per-SSRC streams that earlier inputs created.
// nonisolated(unsafe): libFuzzer calls the entry point from one thread only.
nonisolated(unsafe) let sessions: [(inbound: SRTPSession, outbound: SRTPSession)] = SRTPProfile.allCases.map { profile in
    let key = fuzzSRTPKey(profile: profile)
    return (try! SRTPSession(key: key, direction: .inbound), try! SRTPSession(key: key, direction: .outbound))
}
nonisolated(unsafe) var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096 + 64, alignment: 16)

/// Hostile bytes as SRTP, SRTCP, and as RTP/RTCP to protect (headers with any CSRC count
/// or extension length). The first byte picks profile and operation. Nothing may crash;
/// the packet buffer has exactly the overhead spare so overruns reach the sanitizer's
/// guard (for Swift code; libsrtp itself is not instrumented).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1, size <= 4096 else { return 0 }
    let selector = Int(data[0])
    let (inbound, outbound) = sessions[selector % sessions.count]
    let length = size - 1
    let room = length + max(outbound.profile.rtpOverhead, outbound.profile.rtcpOverhead)
    let packet = UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< room])
    packet.copyMemory(from: UnsafeRawBufferPointer(start: data + 1, count: length))
    switch (selector / sessions.count) % 4 {
    case 0: _ = try? inbound.unprotectRTP(packet, length: length)
    case 1: _ = try? inbound.unprotectRTCP(packet, length: length)
    case 2:
        if let protected = try? outbound.protectRTP(packet, length: length) {
            precondition(protected == length + outbound.profile.rtpOverhead)
        }
    default:
        if let protected = try? outbound.protectRTCP(packet, length: length) {
            precondition(protected == length + outbound.profile.rtcpOverhead)
        }
    }
    return 0
}

@_cdecl("FuzzSRTPUnprotect_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
