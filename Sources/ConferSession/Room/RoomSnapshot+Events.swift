extension RoomSnapshot {
    /// Applies an event the server sent, so a client's copy follows the room between
    /// snapshots. Events that concern nothing in the snapshot leave it as it was.
    public mutating func apply(_ event: RoomEvent) {
        switch event {
        case .joinRequested(let request):
            joinRequests.removeAll { $0.identity == request.identity }
            joinRequests.append(request)
        case .joinRequestEnded(let identity, _):
            joinRequests.removeAll { $0.identity == identity }
            applications.removeAll { $0.identity == identity }
        case .applicationReceived(let application):
            applications.removeAll { $0.identity == application.identity }
            applications.append(application)
        case .memberJoined(let member), .memberUpdated(let member):
            if let index = members.firstIndex(where: { $0.identity == member.identity }) {
                members[index] = member
            } else {
                members.append(member)
            }
        case .memberLeft(let identity, _):
            // The room forgets all that was the member's, and tells no one of each piece.
            members.removeAll { $0.identity == identity }
            media.removeValue(forKey: identity)
            deviceRequests.removeAll { $0.identity == identity }
            applications.removeAll { $0.identity == identity }
        case .hostChanged(let identity):
            host = identity
        case .deviceTurnedOff(let identity, let device):
            if let index = members.firstIndex(where: { $0.identity == identity }) { members[index].devices[device] = false }
        case .deviceRequested(let request):
            deviceRequests.removeAll { $0.id == request.id }
            deviceRequests.append(request)
        case .deviceRequestEnded(let id, _, _, _):
            deviceRequests.removeAll { $0.id == id }
        case .message(let message):
            guard !messages.contains(where: { $0.id == message.id }) else { return }
            messages.append(message)
            if messages.count > 100 { messages.removeFirst(messages.count - 100) }
        case .mediaGranted(let identity, let grant):
            media[identity] = grant
        case .forwardChanged(let forward):
            self.forward = forward
        case .roomClosed:
            break
        }
    }
}
