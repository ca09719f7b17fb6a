import ConferSession
import Foundation

/// One line typed into a command that takes commands on standard input (`host`, `join` and
/// `call` with `--commands`), split the way every such command reads it: a command word,
/// then what follows, spaces kept for a message, and split into words for the rest.
struct ConsoleLine {
    /// The command word, in lower case.
    let command: String
    /// The first word as typed.
    let word: String
    /// Everything after the command word, trimmed at both ends.
    let rest: String
    /// `rest` split at spaces and tabs.
    let arguments: [String]

    /// The line's parts; nil for a blank line or a comment (`#`).
    init?(_ line: String) {
        let trimmed = line.drop { Self.isSpace($0) }
        guard let word = trimmed.split(whereSeparator: Self.isSpace).first, !word.hasPrefix("#") else { return nil }
        self.word = String(word)
        command = word.lowercased()
        var rest = trimmed.dropFirst(word.count).drop { Self.isSpace($0) }
        while let last = rest.last, Self.isSpace(last) { rest = rest.dropLast() }
        self.rest = String(rest)
        arguments = rest.split(whereSeparator: Self.isSpace).map(String.init)
    }

    /// Throws the command's usage unless it was given `count` arguments.
    func expect(_ count: Int, _ usage: String) throws(ConsoleCommandError) {
        guard arguments.count == count else { throw .wrongArguments(command: command, usage: usage) }
    }

    /// `word` as a capture device (`mic`, `microphone`, `camera`, `cam`, `video`).
    func device(_ word: String, usage: String) throws(ConsoleCommandError) -> MediaDevice {
        switch word.lowercased() {
        case "mic", "microphone": return .microphone
        case "camera", "cam", "video": return .camera
        default: throw .wrongArguments(command: command, usage: usage)
        }
    }

    /// The one argument `on` or `off`.
    func onOff(usage: String) throws(ConsoleCommandError) -> Bool {
        try expect(1, usage)
        switch arguments[0].lowercased() {
        case "on": return true
        case "off": return false
        default: throw .wrongArguments(command: command, usage: usage)
        }
    }

    /// What `text` asks for, read by `parse`; nil for nothing to do. A line that is no
    /// command is answered (a `commandError` event with `fields`, and the reason on stderr).
    static func action<Action>(from text: String, parse: (String) throws(ConsoleCommandError) -> Action?, printer: EventPrinter,
                               fields: [String: Any] = [:]) -> Action? {
        do {
            return try parse(text)
        } catch {
            printer.print("commandError", fields.merging(["line": text, "error": error.description]) { _, new in new })
            FileHandle.standardError.write(Data("confer: \(error)\n".utf8))
            return nil
        }
    }

    /// An unknown command word, as an error.
    var unknown: ConsoleCommandError { .unknownCommand(word) }

    /// Spaces and tabs separate words; a carriage return (a script saved with CRLF line ends)
    /// is space too, or `leave\r` would be no command.
    private static func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" || character == "\r" }
}

/// Why a typed line is not a command.
enum ConsoleCommandError: Error, Equatable, CustomStringConvertible {
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
