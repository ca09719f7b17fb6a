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
