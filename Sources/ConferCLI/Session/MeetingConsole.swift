import ConferClient
import ConferSession
import Foundation

/// Carries out what a person types into `confer host --commands` or `confer join --commands`:
/// each line parsed (``MeetingAction``), done through the meeting client, and said back — an
/// event with `--events`, a note on stderr otherwise. A line that is no command is answered
/// on stderr and the session goes on; what the member's role does not allow, the server
/// refuses, and the refusal is printed like any other event.
struct MeetingConsole {
    let client: MeetingClient
    let printer: EventPrinter

    /// What the typed lines asked of the session itself.
    enum Outcome: Sendable {
        /// `leave`: end the session now.
        case leave
        /// `close`: the host closed the room, so the room's end is this member's doing.
        case closing
    }

    /// Reads `lines` until they end, telling `outcome` of a `leave` or `close`.
    func run(_ lines: some AsyncSequence<String, Never>, outcome: @Sendable (Outcome) -> Void) async {
        // Device requests answered from here: the room's copy of one lasts until the server's
        // answer comes back, and a second `accept` typed meanwhile is no new answer.
        var answered: Set<UInt64> = []
        for await line in lines {
            guard let action = ConsoleLine.action(from: line, parse: MeetingAction.parse, printer: printer) else { continue }
            if let problem = await perform(action, answered: &answered) {
                printer.print("commandError", ["line": line, "error": problem])
                FileHandle.standardError.write(Data("confer: \(action.name): \(problem)\n".utf8))
                continue
            }
            printer.print("command", ["line": line, "command": action.name])
            switch action {
            case .leave:
                outcome(.leave)
                return
            case .close: outcome(.closing)
            default: break
            }
        }
    }

    /// Does `action`; what kept it from being sent, if anything (the server's refusals come
    /// back as events).
    func perform(_ action: MeetingAction, answered: inout Set<UInt64>) async -> String? {
        let room = client.room.current
        switch action {
        case .say(let text, let recipients):
            await client.sendMessage(text, to: recipients)
        case .setDevice(let device, let on):
            await client.setDevice(device, on: on)
            printer.note("turning your \(device.rawValue) \(on ? "on" : "off")")
        case .answerDeviceRequest(let device, let accept):
            let asked = (room?.deviceRequests ?? []).filter { $0.identity == client.identity && (device == nil || $0.device == device) }
            let waiting = asked.filter { !answered.contains($0.id) }
            guard let request = waiting.first else {
                if !asked.isEmpty { return "you have answered the host already" }
                return "no request from the host is waiting" + (device.map { " for your \($0.rawValue)" } ?? "")
            }
            guard waiting.count == 1 else { return "the host asks for your microphone and your camera: say which" }
            answered.insert(request.id)
            await client.answer(request, accept: accept)
            if !accept { printer.note("you said no to turning your \(request.device.rawValue) on") }
        case .apply:
            await client.applyForParticipant()
            printer.note("asking the host to become a participant")
        case .approve(let identity), .decline(let identity):
            let approve: Bool
            if case .approve = action { approve = true } else { approve = false }
            // An observer who applied is answered as an application; anyone else as a join request.
            if room?.applications.contains(where: { $0.identity == identity }) == true {
                await client.answerApplication(from: identity, approve: approve)
            } else if approve {
                await client.approve(identity)
            } else {
                await client.decline(identity)
            }
        case .kick(let identity):
            await client.kick(identity)
        case .mute(let identity, let device):
            await client.mute(identity, device: device)
            printer.note("turning \(identity)'s \(device.rawValue) off")
        case .ask(let identity, let device):
            await client.ask(identity, toTurnOn: device)
            printer.note("asking \(identity) to turn their \(device.rawValue) on")
        case .transfer(let identity):
            await client.transferHost(to: identity)
        case .close:
            await client.closeRoom()
        case .leave:
            break
        case .members:
            printMembers(room)
        case .help:
            FileHandle.standardError.write(Data((MeetingAction.usage + "\n").utf8))
        }
        return nil
    }

    /// `members`: a line each (identity, role, online, microphone, camera), and who waits.
    private func printMembers(_ room: RoomSnapshot?) {
        guard let room else { return }
        if printer.json {
            printer.print("members", ["host": room.host ?? NSNull(), "members": EventPrinter.encoded(room.members),
                                      "waiting": room.joinRequests.map(\.identity), "applications": room.applications.map(\.identity)])
            return
        }
        var lines = room.members.map { member in
            let devices = member.role.sends ? "mic \(member.devices.microphone ? "on" : "off"), camera \(member.devices.camera ? "on" : "off")" : "receives only"
            return "  \(member.identity) (\(member.role.rawValue)\(member.online ? "" : ", offline")): \(devices)"
        }
        if !room.joinRequests.isEmpty { lines.append("  waiting to join: \(room.joinRequests.map(\.identity).joined(separator: ", "))") }
        if !room.applications.isEmpty { lines.append("  applying: \(room.applications.map(\.identity).joined(separator: ", "))") }
        FileHandle.standardError.write(Data((["members of \(room.room.id):"] + lines).joined(separator: "\n").utf8 + Data("\n".utf8)))
    }
}
