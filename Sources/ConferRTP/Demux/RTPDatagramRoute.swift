/// Which side of an endpoint a datagram in a star meeting is for, on either end of a
/// participant ↔ host connection.
///
/// RTP and RTCP of both directions share one transport (RFC 5761). RTP is media for the
/// receive side. Of RTCP, a compound that starts with a sender report is about the media
/// the peer sends, so it goes to the receive side too (for the LSR/DLSR of its receiver
/// reports); every other compound — receiver reports, NACK, PLI, FIR, transport-cc, REMB —
/// is feedback about what this end sends, for its send side. SRTCP leaves the first eight
/// bytes in the clear, so the rule works on protected datagrams, before any key is tried.
public enum RTPDatagramRoute: Sendable, Hashable {
    /// RTP media (or anything that is not RTCP, which the receive side counts and drops).
    case media
    /// An RTCP compound opening with a sender report: for the receive side.
    case senderReport
    /// Any other RTCP compound: feedback for the send side.
    case feedback

    /// Whether `datagram` is RTCP rather than RTP (RFC 5761 §4: RTCP packet types 192…223
    /// in the second byte never collide with RTP payload types in use): the one RTP/RTCP
    /// demultiplexing test, for every transport that carries both on one port.
    public static func isRTCP<Bytes: RandomAccessCollection<UInt8>>(_ datagram: Bytes) -> Bool where Bytes.Index == Int {
        datagram.count >= 2 && (192 ... 223).contains(datagram[datagram.startIndex + 1])
    }

    /// The route of `datagram`.
    public init(classifying datagram: UnsafeRawBufferPointer) {
        guard Self.isRTCP(datagram) else {
            self = .media
            return
        }
        self = datagram[1] == 200 ? .senderReport : .feedback
    }

    /// Whether the receive side (a ``ReceivePipeline``) takes it; otherwise the send side does.
    public var isForReceiveSide: Bool { self != .feedback }
}
