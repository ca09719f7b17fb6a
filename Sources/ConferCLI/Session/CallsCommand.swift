import ArgumentParser
import ConferClient
import ConferSession
import Foundation


struct CallsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calls",
        abstract: "Page through your call log on the server, newest first.",
        discussion: """
        The token says whose log: a user reads its own calls only.
          confer calls --server http://127.0.0.1:7880 --token "$ALICE" --role caller --result completed --result noAnswer
          confer calls --server http://127.0.0.1:7880 --token "$ALICE" --with bob --all
        """)

    @OptionGroup var connection: ServerOptions
    @Option(help: "caller or callee (both by default).")
    var role: CallRole?
    @Option(help: "Only calls that ended so (repeat for several): \(CallEndResult.allCases.map(\.rawValue).joined(separator: ", ")).")
    var result: [CallEndResult] = []
    @Option(help: "Only calls with this user.")
    var with: String?
    @Option(help: "Calls per page (1–100).")
    var limit = 20
    @Option(help: "Start after this cursor (printed with each page).")
    var cursor: String?
    @Flag(help: "Every page, not just the first.")
    var all = false
    @Flag(help: "Print each page as JSON.")
    var json = false

    func validate() throws {
        if !(1 ... CallLogQuery.maximumLimit).contains(limit) { throw ValidationError("--limit must be between 1 and 100") }
        if let cursor, CallLogCursor(text: cursor) == nil { throw ValidationError("--cursor is not one this command printed") }
        if let with, with.isEmpty || with.utf8.count > 256 { throw ValidationError("--with names a user (1 to 256 bytes)") }
    }

    func run() async throws {
        let client = try connection.callClient(device: "calls-\(getpid())")
        do { try await client.start() } catch { try CallCommand.fail(error) }
        var query = CallLogQuery(role: role, results: result.isEmpty ? nil : result, peer: with, limit: limit, cursor: cursor)
        var printed = 0
        repeat {
            let page: CallLogPage
            do { page = try await client.callLog(query) } catch {
                await client.stop()
                try CallCommand.fail(error)
            }
            if json {
                let data = (try? JSONEncoder().encode(page)) ?? Data()
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            } else {
                for call in page.calls { print(Self.line(call, for: client.identity)) }
                if let next = page.next, !all { print("more: --cursor \(next)") }
            }
            printed += page.calls.count
            guard let next = page.next else { break }
            query.cursor = next
        } while all
        if !json, printed == 0 { print("no calls") }
        await client.stop()
    }

    static func line(_ call: CallRecord, for identity: String) -> String {
        let when = Date(timeIntervalSince1970: Double(call.started.milliseconds) / 1000)
        let formatter = ISO8601DateFormatter()
        let direction = call.caller == identity ? "→ \(call.callee)" : "← \(call.caller)"
        let seconds = Double(call.duration.components.seconds) + Double(call.duration.components.attoseconds) / 1e18
        var text = "\(formatter.string(from: when))  \(direction)  \(call.video ? "video" : "voice")  \(call.result?.rawValue ?? "in progress")"
        // Why a dial failed: the callee unknown, offline or busy.
        if let failure = call.failure { text += " (\(failure.rawValue))" }
        if call.connected != nil { text += String(format: "  %.1f s", seconds) }
        if let device = call.acceptedDevice { text += "  answered on \(device)" }
        return text + "  \(call.id)"
    }
}
