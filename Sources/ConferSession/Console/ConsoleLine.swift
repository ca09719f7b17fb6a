/// One line a person types to a meeting or call console, split the way every console reads
/// it: a command word, then what follows (spaces kept, for a message) and that split into words.
///
/// Words are split at Unicode scalars — space, tab and carriage return (a script saved with
/// CRLF line ends) — rather than at characters, so a combining mark typed after a space starts
/// a word instead of gluing the space to it: the line an action writes (``MeetingAction/line``)
/// then reads back as the same action.
public struct ConsoleLine: Hashable, Sendable {
    /// The command word, in lower case.
    public let command: String
    /// The first word as typed.
    public let word: String
    /// Everything after the command word, trimmed at both ends.
    public let rest: String
    /// `rest` split into words.
    public let arguments: [String]

    /// The line's parts; nil for a blank line or a comment (`#`).
    public init?(_ line: String) {
        let scalars = Substring(line).unicodeScalars
        let trimmed = scalars.drop { Self.isSpace($0) }
        guard let word = trimmed.split(whereSeparator: Self.isSpace).first, word.first != "#" else { return nil }
        self.word = String(word)
        command = self.word.lowercased()
        var rest = trimmed.dropFirst(word.count).drop { Self.isSpace($0) }
        while let last = rest.last, Self.isSpace(last) { rest = rest.dropLast() }
        self.rest = String(rest)
        arguments = rest.split(whereSeparator: Self.isSpace).map { String($0) }
    }

    /// Throws the command's usage unless it was given `count` arguments.
    public func expect(_ count: Int, _ usage: String) throws(ConsoleCommandError) {
        guard arguments.count == count else { throw .wrongArguments(command: command, usage: usage) }
    }

    /// `word` as a capture device (`mic`, `microphone`, `camera`, `cam`, `video`).
    public func device(_ word: String, usage: String) throws(ConsoleCommandError) -> MediaDevice {
        switch word.lowercased() {
        case "mic", "microphone": return .microphone
        case "camera", "cam", "video": return .camera
        default: throw .wrongArguments(command: command, usage: usage)
        }
    }

    /// The one argument `on` or `off`.
    public func onOff(usage: String) throws(ConsoleCommandError) -> Bool {
        try expect(1, usage)
        switch arguments[0].lowercased() {
        case "on": return true
        case "off": return false
        default: throw .wrongArguments(command: command, usage: usage)
        }
    }

    /// `rest` after its first `count` words, with the space after them dropped (a message that
    /// follows its recipients).
    public func rest(after count: Int) -> String {
        var text = Substring(rest).unicodeScalars[...]
        for _ in 0 ..< count {
            text = text.drop { Self.isSpace($0) }
            text = text.drop { !Self.isSpace($0) }
        }
        return String(text.drop { Self.isSpace($0) })
    }

    /// An unknown command word, as an error.
    public var unknown: ConsoleCommandError { .unknownCommand(word) }

    /// The word a line uses for `device`.
    public static func word(for device: MediaDevice) -> String { device == .microphone ? "mic" : "camera" }

    /// Whether `scalar` separates words.
    public static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" || scalar == "\r" }
}
