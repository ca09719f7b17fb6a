import ConferSession
import FuzzSupport

/// Feeds arbitrary bytes, as lines typed into a console, to both console parsers
/// (``MeetingAction`` and ``CallAction``): each line must give an action, nothing, or a typed
/// error with a reason, never crash; the line an action writes must read back as that action.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
        let typed = String(Substring(line))
        check(typed, MeetingAction.parse, \.line)
        check(typed, CallAction.parse, \.line)
    }
    return 0
}

/// `typed` read by `parse`: an action whose `line` reads back as it, nothing, or an error that says why.
func check<Action: Equatable>(_ typed: String, _ parse: (String) throws(ConsoleCommandError) -> Action?, _ line: (Action) -> String) {
    do {
        guard let action = try parse(typed) else { return }
        let again = try parse(line(action))
        precondition(again == action, "\(typed.debugDescription) gave \(action), whose line \(line(action).debugDescription) gave \(String(describing: again))")
    } catch {
        precondition(!error.description.isEmpty)
    }
}

@_cdecl("FuzzConsoleCommand_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
