import ConferMedia
import ConferNet

/// The simulated network between one participant and the host, both ways, in virtual time.
/// A class so the pipelines' output closures can put datagrams on it without holding the
/// pipelines (which would make a cycle).
final class MeetingPath {
    /// Participant → host.
    var uplink: NetworkLink<[UInt8]>
    /// Host → participant.
    var downlink: NetworkLink<[UInt8]>
    /// The time datagrams sent now are stamped with.
    var now = Timestamp.zero

    init(uplink: NetworkConditions, downlink: NetworkConditions, seed: UInt64) {
        self.uplink = NetworkLink(conditions: uplink, seed: seed)
        self.downlink = NetworkLink(conditions: downlink, seed: seed &+ 0x9E37_79B9_7F4A_7C15)
        self.uplink.reserveCapacity(1024)
        self.downlink.reserveCapacity(1024)
    }

    /// Sends a datagram from the participant.
    func sendUp(_ datagram: UnsafeRawBufferPointer) { _ = uplink.send(Array(datagram), at: now) }

    /// Sends a datagram from the host.
    func sendDown(_ datagram: UnsafeRawBufferPointer) { _ = downlink.send(Array(datagram), at: now) }

    /// When the next datagram arrives at either end.
    var nextDeliveryTime: Timestamp? {
        switch (uplink.nextDeliveryTime, downlink.nextDeliveryTime) {
        case let (up?, down?): min(up, down)
        case let (up, down): up ?? down
        }
    }
}

/// Which stream a datagram on a meeting path belongs to, read from its clear header.
enum MeetingDatagram {
    /// RTP with this payload type and SSRC.
    case rtp(payloadType: UInt8, ssrc: UInt32)
    /// An RTCP compound that starts with a sender report: about the stream its sender sends.
    case senderReport
    /// Any other RTCP compound: feedback about the streams its receiver gets.
    case feedback
    /// Too short to be either.
    case unknown

    /// Classifies `bytes`. SRTP and SRTCP leave these header fields in the clear.
    init(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 12 || (bytes.count >= 8 && (192 ... 223).contains(bytes[1])) else {
            self = .unknown
            return
        }
        // RFC 5761 §4: RTCP packet types 192…223 never collide with RTP payload types in use.
        if (192 ... 223).contains(bytes[1]) {
            self = bytes[1] == 200 ? .senderReport : .feedback
        } else {
            let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
            self = .rtp(payloadType: bytes[1] & 0x7F, ssrc: ssrc)
        }
    }
}
