/// Why a typed line is not a command; a console answers it and reads on.
public enum ConsoleCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The first word is no command.
    case unknownCommand(String)
    /// The command's arguments are missing, extra or not among its choices.
    case wrongArguments(command: String, usage: String)

    /// The reason, for a person: what would have been a command.
    public var description: String {
        switch self {
        case .unknownCommand(let word): "unknown command '\(word)': type help for the list"
        case .wrongArguments(let command, let usage): "\(command) takes: \(usage)"
        }
    }
}
