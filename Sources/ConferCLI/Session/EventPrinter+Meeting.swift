import ConferClient
import ConferSession
import Foundation

/// A meeting's events: what `confer host` and `confer join` print as they happen.
extension EventPrinter {
    /// Prints one event.
    func print(_ event: MeetingEvent, as me: String? = nil) {
        if json { line(Self.object(event)) } else if !quiet, let text = Self.human(event, as: me) { note(text) }
    }

    /// `{"caseName": {"label": …, "_0": …}}` as Swift encodes an enum, flattened to
    /// `{"event": "caseName", "label": …, "data": …}`.
    static func flatten(_ value: some Encodable) -> [String: Any] {
        guard let object = encoded(value) as? [String: Any], let (name, inner) = object.first else { return [:] }
        var result: [String: Any] = ["event": name]
        for (key, field) in (inner as? [String: Any]) ?? [:] { result[key == "_0" ? "data" : key] = field }
        return result
    }

    static func object(_ event: MeetingEvent) -> [String: Any] {
        switch event {
        case .room(.mediaGranted(let identity, let grant)):
            // The grant carries the member's SRTP keys: an event stream ends up in logs, so only the slot goes out.
            return ["event": "mediaGranted", "identity": identity, "slot": grant.slot]
        case .room(let roomEvent): return flatten(roomEvent)
        case .connection(let state):
            var object: [String: Any] = ["event": "connection", "state": state.name]
            if case .disconnected(let reason?) = state { object["reason"] = reason.rawValue }
            if case .reconnecting(let attempt) = state { object["attempt"] = attempt }
            return object
        case .waiting(let request): return ["event": "waiting", "request": encoded(request)]
        case .joined(let snapshot):
            return ["event": "joined", "host": snapshot.host ?? NSNull(), "members": snapshot.members.map(\.identity),
                    "waiting": snapshot.joinRequests.map(\.identity)]
        case .refused(let action, let reason): return ["event": "refused", "action": action, "reason": reason.rawValue]
        }
    }

    /// The line for a person; `me` is the member printing, where the line differs for the
    /// one it concerns (a device request goes to the member asked and to the host).
    static func human(_ event: MeetingEvent, as me: String? = nil) -> String? {
        switch event {
        case .connection(let state):
            if case .disconnected(let reason?) = state { return "connection: disconnected (\(reason.rawValue))" }
            return "connection: \(state.name)"
        case .waiting: return "waiting for the host to approve"
        case .joined(let snapshot):
            return "joined \(snapshot.room.id): host \(snapshot.host ?? "none"), members \(snapshot.members.map(\.identity).joined(separator: ", "))"
        case .refused(let action, let reason): return "refused \(action): \(reason.rawValue) (\(reason.explanation))"
        case .room(let roomEvent):
            switch roomEvent {
            case .joinRequested(let request): return "\(request.identity) asks to join"
            case .joinRequestEnded(let identity, let outcome): return "\(identity)'s request: \(outcome.rawValue)"
            case .memberJoined(let member): return "\(member.identity) joined as \(member.role.rawValue)"
            case .memberLeft(let identity, let reason): return "\(identity) left (\(reason.rawValue))"
            case .hostChanged(let identity): return identity.map { "host is now \($0)" } ?? "the room has no host now"
            case .message(let message):
                // A message to some members only says so, or it reads as said to the room.
                let to = message.to.map { " (to \($0.joined(separator: ", ")))" } ?? ""
                return "\(message.from ?? "server")\(to): \(message.text)"
            case .deviceTurnedOff(_, let device): return "the host turned your \(device.rawValue) off"
            case .deviceRequested(let request):
                if let me, request.identity != me { return "\(request.identity) is asked to turn the \(request.device.rawValue) on" }
                return "the host asks you to turn your \(request.device.rawValue) on"
            case .roomClosed: return "the room closed"
            case .applicationReceived(let application): return "\(application.identity) applies to become a participant"
            case .deviceRequestEnded(_, let identity, let device, let outcome):
                return "the request that \(identity) turn the \(device.rawValue) on: \(outcome.rawValue)"
            case .forwardChanged(let forward?):
                return "the room's forward: the composite to \(forward.video)" + (forward.audio.map { ", the mix to \($0)" } ?? "")
            case .forwardChanged(nil): return "the room's forward stopped"
            case .memberUpdated, .mediaGranted: return nil
            }
        }
    }
}
