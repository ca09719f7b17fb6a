import ConferSession
import Foundation

/// One line a person types into `confer call --commands`: answering, muting, video, custom
/// items and hanging up, in words. The server refuses what the call's state does not allow
/// (an accept after the end, say), and the refusal is printed like any other event.
enum CallAction: Equatable, Sendable {
    /// Callee: answer the ringing call on this device.
    case accept
    /// Callee: refuse the ringing call.
    case decline
    /// Turn this side's microphone or camera on or off.
    case setDevice(MediaDevice, on: Bool)
    /// Set a custom item the other side sees.
    case set(key: String, value: String)
    /// Delete a custom item.
    case unset(String)
    /// End the call (cancel it while it rings).
    case hangUp
    /// Print the commands.
    case help

    /// The command's first word, as printed in events.
    var name: String {
        switch self {
        case .accept: "accept"
        case .decline: "decline"
        case .setDevice(let device, _): device == .microphone ? "mic" : "camera"
        case .set: "set"
        case .unset: "unset"
        case .hangUp: "hangup"
        case .help: "help"
        }
    }

    /// What `help` prints.
    static let usage = """
        commands, one a line:
          accept | decline         answer the call that rings
          mic on|off               turn your microphone on or off
          camera on|off            turn your camera on or off
          set KEY=VALUE            set a custom item the other side sees
          unset KEY                delete a custom item
          hangup                   end the call (cancel it while it rings)
        """

    /// The action a line asks for; nil for a blank line or a comment (`#`).
    static func parse(_ text: String) throws(ConsoleCommandError) -> CallAction? {
        guard let line = ConsoleLine(text) else { return nil }
        let command = line.command
        switch command {
        case "accept", "answer", "decline", "hangup", "end", "leave", "help", "?":
            try line.expect(0, command)
            switch command {
            case "accept", "answer": return .accept
            case "decline": return .decline
            case "help", "?": return .help
            default: return .hangUp
            }
        case "mic", "microphone", "camera", "cam", "video":
            let usage = "\(command) on|off"
            return .setDevice(try line.device(command, usage: usage), on: try line.onOff(usage: usage))
        case "set":
            let usage = "set KEY=VALUE"
            guard let equals = line.rest.firstIndex(of: "="), equals != line.rest.startIndex else {
                throw .wrongArguments(command: command, usage: usage)
            }
            let key = String(line.rest[..<equals]).trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, !key.contains(" ") else { throw .wrongArguments(command: command, usage: usage) }
            return .set(key: key, value: String(line.rest[line.rest.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
        case "unset":
            try line.expect(1, "unset KEY")
            return .unset(line.arguments[0])
        default:
            throw line.unknown
        }
    }
}
