import ConferSession
import Foundation

extension ConsoleLine {
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
}
