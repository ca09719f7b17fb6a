import ConferMedia
import ConferSession
import ConferJobs

/// The signaling of a virtual-time meeting, through the same ``RoomState`` the server runs:
/// the host joins, each participant asks to join and the host approves it, the room hands
/// out each member's slot and SRTP keys (from the meeting's seed, so a run repeats), and
/// kicks are the room's kicks. Every event the host hears is kept for the report.
final class MeetingSession {
    private var room: RoomState<SeededGenerator>
    private let hostAddress = SessionAddress(identity: "host", connection: 0)
    private var addresses: [SessionAddress] = []
    private(set) var grants: [MediaGrant] = []
    private(set) var events: [MeetingReport.SessionEvent] = []
    /// Members (by index) the room has ended, with the reason.
    private(set) var ended: [Int: DisconnectReason] = [:]

    /// A room for `count` participants, all admitted at virtual time zero.
    init(participants count: Int, seed: UInt64) throws {
        let origin = SessionTime(milliseconds: 0)
        room = RoomState(info: RoomInfo(id: "meeting"), rules: RoomRules(), at: origin, random: SeededGenerator(seed: seed))
        apply(room.join(Self.claims("host", .host), on: hostAddress, at: origin), at: .zero)
        for index in 0 ..< count {
            let address = SessionAddress(identity: Self.identity(index), connection: UInt64(index + 1))
            addresses.append(address)
            apply(room.join(Self.claims(address.identity, .participant), on: address, at: origin), at: .zero)
            apply(room.handle(.approve(identity: address.identity), from: hostAddress, at: origin), at: .zero)
        }
        let snapshot = room.snapshot(for: "host")
        grants = try addresses.map { address in
            guard let grant = snapshot.media[address.identity] else {
                throw JobError(.internalFailure, "the room admitted \(address.identity) without media keys")
            }
            return grant
        }
    }

    static func identity(_ index: Int) -> String { "participant-\(index + 1)" }

    private static func claims(_ identity: String, _ role: MemberRole) -> TokenClaims {
        TokenClaims(identity: identity, name: identity, room: "meeting", role: role, notBefore: 0, expires: Int64.max / 2000)
    }

    /// The host kicks member `index` at `time`; whether the room ended its session.
    func kick(_ index: Int, at time: Timestamp) -> Bool {
        apply(room.handle(.kick(identity: addresses[index].identity), from: hostAddress, at: Self.sessionTime(time)), at: time)
        return ended[index] != nil
    }

    /// Keepalives and the room's timers, so a long run keeps everyone in.
    func tick(at time: Timestamp) {
        let now = Self.sessionTime(time)
        apply(room.handle(.ping(sent: nil), from: hostAddress, at: now), at: time)
        for (index, address) in addresses.enumerated() where ended[index] == nil {
            apply(room.handle(.ping(sent: nil), from: address, at: now), at: time)
        }
        apply(room.tick(at: now), at: time)
    }

    private static func sessionTime(_ time: Timestamp) -> SessionTime { SessionTime(milliseconds: time.microseconds / 1000) }

    private func apply(_ effects: [RoomEffect], at time: Timestamp) {
        for effect in effects {
            switch effect {
            case .send(let address, .event(let event)) where address == hostAddress:
                if let record = MeetingReport.SessionEvent(event, at: time.seconds) { events.append(record) }
            case .end(let address, let reason):
                if let index = addresses.firstIndex(of: address) { ended[index] = reason }
            default:
                break
            }
        }
    }
}

extension MeetingReport.SessionEvent {
    /// The report's line for an event the host heard, or nil for those it does not keep
    /// (member updates, figures).
    init?(_ event: RoomEvent, at seconds: Double) {
        switch event {
        case .joinRequested(let request): self.init(time: seconds, event: "joinRequested", identity: request.identity, detail: nil)
        case .joinRequestEnded(let identity, let outcome): self.init(time: seconds, event: "joinRequestEnded", identity: identity, detail: outcome.rawValue)
        case .memberJoined(let member): self.init(time: seconds, event: "memberJoined", identity: member.identity, detail: "slot \(member.slot)")
        case .memberLeft(let identity, let reason): self.init(time: seconds, event: "memberLeft", identity: identity, detail: reason.rawValue)
        default: return nil
        }
    }
}
