import ConferMedia
import ConferRTP
import ConferSRTP

/// The RTCP a sender sends (RFC 3550 §6): a compound of a sender report and an SDES
/// CNAME, and at the end the same with a BYE, SRTCP-protected when there is a key.
///
/// Its own outbound SRTP session protects only RTCP, so its SRTCP index and the RTP
/// session's packet index never share a keystream.
final class RTPSenderControl {
    private let ssrc: UInt32
    private let description: RTCPSourceDescription
    private let srtcp: SRTPSession?
    private var buffer: UnsafeMutableRawBufferPointer

    init(ssrc: UInt32, cname: String, srtpKey: SRTPMasterKey?) throws {
        self.ssrc = ssrc
        description = RTCPSourceDescription(ssrc: ssrc, cname: String(cname.utf8.prefix(255)) ?? "confer")
        srtcp = try srtpKey.map { try SRTPSession(key: $0, direction: .outbound) }
        buffer = .allocate(byteCount: 1500, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// A sender report and CNAME as of `now`.
    func report(_ statistics: RTPSenderStatistics, now: Timestamp, mapping: NTPClockMapping) throws -> UnsafeRawBufferPointer {
        try compound([.senderReport(statistics.makeSenderReport(now: now, clock: mapping)), .sourceDescription(description)])
    }

    /// The last report, CNAME and a BYE.
    func goodbye(_ statistics: RTPSenderStatistics, now: Timestamp, mapping: NTPClockMapping) throws -> UnsafeRawBufferPointer {
        try compound([.senderReport(statistics.makeSenderReport(now: now, clock: mapping)), .sourceDescription(description),
                      .bye(RTCPBye(ssrcs: [ssrc]))])
    }

    private func compound(_ packets: [RTCPPacket]) throws -> UnsafeRawBufferPointer {
        var length = try RTCPCompound.serialize(packets, into: buffer)
        if let srtcp { length = try srtcp.protectRTCP(buffer, length: length) }
        return UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])
    }
}
