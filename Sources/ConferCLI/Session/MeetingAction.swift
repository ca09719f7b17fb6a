import ConferSession

/// One line a person types into `confer host --commands` or `confer join --commands`: what
/// the client library lets a member do, in words. The server decides what the member's
/// role allows and answers a refusal, which is printed like any other event; the parser only
/// checks the words.
enum MeetingAction: Equatable, Sendable {
    /// Chat to everyone, or (`to`) to some members only.
    case say(String, to: [String]?)
    /// Turn this member's own microphone or camera on or off.
    case setDevice(MediaDevice, on: Bool)
    /// Answer the host's request to turn a device on: the one for `device`, or the only one waiting.
    case answerDeviceRequest(MediaDevice?, accept: Bool)
    /// An observer asks to become a participant.
    case apply
    /// Host: let in a member waiting to join (or an observer who applied).
    case approve(String)
    /// Host: turn a join request (or an application) down.
    case decline(String)
    /// Host: remove a member.
    case kick(String)
    /// Host: turn a member's device off.
    case mute(String, MediaDevice)
    /// Host: ask a member to turn a device on.
    case ask(String, MediaDevice)
    /// Host: hand the room to a participant.
    case transfer(String)
    /// Host: close the room for everyone.
    case close
    /// Leave the room.
    case leave
    /// Print who is in the room and what they send.
    case members
    /// Print the commands.
    case help

    /// The command's first word, as printed in events.
    var name: String {
        switch self {
        case .say: "say"
        case .setDevice(let device, _): device == .microphone ? "mic" : "camera"
        case .answerDeviceRequest(_, let accept): accept ? "accept" : "refuse"
        case .apply: "apply"
        case .approve: "approve"
        case .decline: "decline"
        case .kick: "kick"
        case .mute: "mute"
        case .ask: "ask"
        case .transfer: "transfer"
        case .close: "close"
        case .leave: "leave"
        case .members: "members"
        case .help: "help"
        }
    }

    /// What `help` prints.
    static let usage = """
        commands, one a line:
          say TEXT                 chat to everyone
          tell ID[,ID…] TEXT       chat to some members only
          mic on|off               turn your microphone on or off
          camera on|off            turn your camera on or off
          accept [mic|camera]      turn a device on as the host asked
          refuse [mic|camera]      say no to the host's request
          apply                    observer: ask to become a participant
          members                  who is in the room, and what they send
          leave                    leave the room
        the host's:
          approve ID | decline ID  answer a join request (or an observer's application)
          kick ID                  remove a member
          mute ID mic|camera       turn a member's device off
          ask ID mic|camera        ask a member to turn a device on
          transfer ID              make a participant the host
          close                    close the room for everyone
        """

    /// The action a line asks for; nil for a blank line or a comment (`#`).
    static func parse(_ line: String) throws(MeetingActionError) -> MeetingAction? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard let word = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).first, !word.hasPrefix("#") else { return nil }
        let command = word.lowercased()
        // What follows the command word, spaces kept (a chat message is taken as typed).
        let rest = String(trimmed.dropFirst(word.count).drop { $0 == " " || $0 == "\t" }).trimmingTrailingWhitespace
        let arguments = rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)

        func expect(_ count: Int, _ shape: String) throws(MeetingActionError) {
            guard arguments.count == count else { throw .wrongArguments(command: command, usage: shape) }
        }
        func device(_ word: String, usage: String) throws(MeetingActionError) -> MediaDevice {
            switch word.lowercased() {
            case "mic", "microphone": return .microphone
            case "camera", "cam", "video": return .camera
            default: throw .wrongArguments(command: command, usage: usage)
            }
        }

        switch command {
        case "say":
            guard !rest.isEmpty else { throw .wrongArguments(command: command, usage: "say TEXT") }
            return .say(rest, to: nil)
        case "tell":
            let usage = "tell ID[,ID…] TEXT"
            guard arguments.count >= 2 else { throw .wrongArguments(command: command, usage: usage) }
            let recipients = arguments[0].split(separator: ",").map(String.init).filter { !$0.isEmpty }
            let text = String(rest.dropFirst(arguments[0].count).drop { $0 == " " || $0 == "\t" })
            guard !recipients.isEmpty else { throw .wrongArguments(command: command, usage: usage) }
            return .say(text, to: recipients)
        case "mic", "microphone", "camera", "cam", "video":
            let usage = "\(command) on|off"
            try expect(1, usage)
            switch arguments[0].lowercased() {
            case "on": return .setDevice(try device(command, usage: usage), on: true)
            case "off": return .setDevice(try device(command, usage: usage), on: false)
            default: throw .wrongArguments(command: command, usage: usage)
            }
        case "accept", "refuse":
            let usage = "\(command) [mic|camera]"
            guard arguments.count <= 1 else { throw .wrongArguments(command: command, usage: usage) }
            return .answerDeviceRequest(try arguments.first.map { word throws(MeetingActionError) in try device(word, usage: usage) },
                                        accept: command == "accept")
        case "approve", "decline", "kick", "transfer":
            try expect(1, "\(command) ID")
            let identity = arguments[0]
            switch command {
            case "approve": return .approve(identity)
            case "decline": return .decline(identity)
            case "kick": return .kick(identity)
            default: return .transfer(identity)
            }
        case "mute", "ask":
            let usage = "\(command) ID mic|camera"
            try expect(2, usage)
            let chosen = try device(arguments[1], usage: usage)
            return command == "mute" ? .mute(arguments[0], chosen) : .ask(arguments[0], chosen)
        case "apply", "close", "leave", "members", "help", "?":
            try expect(0, command)
            switch command {
            case "apply": return .apply
            case "close": return .close
            case "leave": return .leave
            case "members": return .members
            default: return .help
            }
        default:
            throw .unknownCommand(String(word))
        }
    }
}

/// Why a typed line is not a command.
enum MeetingActionError: Error, Equatable, CustomStringConvertible {
    /// The first word is no command.
    case unknownCommand(String)
    /// The command's arguments are missing, extra or not among its choices.
    case wrongArguments(command: String, usage: String)

    var description: String {
        switch self {
        case .unknownCommand(let word): "unknown command '\(word)': type help for the list"
        case .wrongArguments(let command, let usage): "\(command) takes: \(usage)"
        }
    }
}

private extension String {
    var trimmingTrailingWhitespace: String {
        var text = self
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
