/// One line a person types to a call console (`confer call --commands`, or an app's own):
/// answering, muting, video, custom items and hanging up, in words. The server refuses what
/// the call's state does not allow (an accept after the end, say).
public enum CallAction: Hashable, Sendable {
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
    public var name: String {
        switch self {
        case .accept: "accept"
        case .decline: "decline"
        case .setDevice(let device, _): ConsoleLine.word(for: device)
        case .set: "set"
        case .unset: "unset"
        case .hangUp: "hangup"
        case .help: "help"
        }
    }

    /// The line that asks for this action, in the commands' own words: ``parse(_:)`` reads
    /// it back as this action (for any action the parser gave).
    public var line: String {
        switch self {
        case .setDevice(_, let on): "\(name) \(on ? "on" : "off")"
        case .set(let key, let value): "set \(key)=\(value)"
        case .unset(let key): "unset \(key)"
        case .accept, .decline, .hangUp, .help: name
        }
    }

    /// What `help` prints.
    public static let usage = """
        commands, one a line:
          accept | decline         answer the call that rings
          mic on|off               turn your microphone on or off
          camera on|off            turn your camera on or off
          set KEY=VALUE            set a custom item the other side sees
          unset KEY                delete a custom item
          hangup                   end the call (cancel it while it rings)
        """

    /// The action a line asks for; nil for a blank line or a comment (`#`).
    public static func parse(_ text: String) throws(ConsoleCommandError) -> CallAction? {
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
            let rest = Substring(line.rest).unicodeScalars
            guard let equals = rest.firstIndex(of: "=") else { throw .wrongArguments(command: command, usage: usage) }
            let key = Self.trimmed(rest[..<equals]), value = Self.trimmed(rest[rest.index(after: equals)...])
            guard !key.isEmpty, !key.contains(where: \.properties.isWhitespace) else {
                throw .wrongArguments(command: command, usage: usage)
            }
            return .set(key: String(Substring(key)), value: String(Substring(value)))
        case "unset":
            try line.expect(1, "unset KEY")
            return .unset(line.arguments[0])
        default:
            throw line.unknown
        }
    }

    /// `scalars` without white space at either end.
    private static func trimmed(_ scalars: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView {
        var result = scalars.drop(while: \.properties.isWhitespace)
        while let last = result.last, last.properties.isWhitespace { result = result.dropLast() }
        return result
    }
}
