/// One line a person types to a meeting console (`confer host --commands`, `confer join
/// --commands`, or an app's own): what a member can do, in words. The server decides what the
/// member's role allows and answers a refusal; the parser only checks the words.
public enum MeetingAction: Hashable, Sendable {
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
    public var name: String {
        switch self {
        case .say: "say"
        case .setDevice(let device, _): ConsoleLine.word(for: device)
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

    /// The line that asks for this action, in the commands' own words: ``parse(_:)`` reads
    /// it back as this action (for any action the parser gave; an identity with a space in it
    /// has no line).
    public var line: String {
        switch self {
        case .say(let text, nil): "say \(text)"
        case .say(let text, let recipients?): "tell \(recipients.joined(separator: ",")) \(text)"
        case .setDevice(let device, let on): "\(ConsoleLine.word(for: device)) \(on ? "on" : "off")"
        case .answerDeviceRequest(let device, _): name + (device.map { " " + ConsoleLine.word(for: $0) } ?? "")
        case .approve(let identity), .decline(let identity), .kick(let identity), .transfer(let identity): "\(name) \(identity)"
        case .mute(let identity, let device), .ask(let identity, let device): "\(name) \(identity) \(ConsoleLine.word(for: device))"
        case .apply, .close, .leave, .members, .help: name
        }
    }

    /// What `help` prints.
    public static let usage = """
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
    public static func parse(_ text: String) throws(ConsoleCommandError) -> MeetingAction? {
        guard let line = ConsoleLine(text) else { return nil }
        let command = line.command, arguments = line.arguments
        switch command {
        case "say":
            guard !line.rest.isEmpty else { throw .wrongArguments(command: command, usage: "say TEXT") }
            return .say(line.rest, to: nil)
        case "tell":
            let usage = "tell ID[,ID…] TEXT"
            guard arguments.count >= 2 else { throw .wrongArguments(command: command, usage: usage) }
            let recipients = Substring(arguments[0]).unicodeScalars.split(separator: ",").map { String(Substring($0)) }
            let text = line.rest(after: 1)
            guard !recipients.isEmpty else { throw .wrongArguments(command: command, usage: usage) }
            return .say(text, to: recipients)
        case "mic", "microphone", "camera", "cam", "video":
            let usage = "\(command) on|off"
            return .setDevice(try line.device(command, usage: usage), on: try line.onOff(usage: usage))
        case "accept", "refuse":
            let usage = "\(command) [mic|camera]"
            guard arguments.count <= 1 else { throw .wrongArguments(command: command, usage: usage) }
            return .answerDeviceRequest(try arguments.first.map { word throws(ConsoleCommandError) in try line.device(word, usage: usage) },
                                        accept: command == "accept")
        case "approve", "decline", "kick", "transfer":
            try line.expect(1, "\(command) ID")
            let identity = arguments[0]
            switch command {
            case "approve": return .approve(identity)
            case "decline": return .decline(identity)
            case "kick": return .kick(identity)
            default: return .transfer(identity)
            }
        case "mute", "ask":
            let usage = "\(command) ID mic|camera"
            try line.expect(2, usage)
            let chosen = try line.device(arguments[1], usage: usage)
            return command == "mute" ? .mute(arguments[0], chosen) : .ask(arguments[0], chosen)
        case "apply", "close", "leave", "members", "help", "?":
            try line.expect(0, command)
            switch command {
            case "apply": return .apply
            case "close": return .close
            case "leave": return .leave
            case "members": return .members
            default: return .help
            }
        default:
            throw line.unknown
        }
    }
}

