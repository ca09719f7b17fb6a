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
        do {
            if let action = try MeetingAction.parse(typed) {
                let again = try MeetingAction.parse(action.line)
                precondition(again == action, "meeting line \(typed.debugDescription) gave \(action), whose line \(action.line.debugDescription) gave \(String(describing: again))")
            }
        } catch {
            precondition(!error.description.isEmpty)
        }
        do {
            if let action = try CallAction.parse(typed) {
                let again = try CallAction.parse(action.line)
                precondition(again == action, "call line \(typed.debugDescription) gave \(action), whose line \(action.line.debugDescription) gave \(String(describing: again))")
            }
        } catch {
            precondition(!error.description.isEmpty)
        }
    }
    return 0
}

@_cdecl("FuzzConsoleCommand_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
