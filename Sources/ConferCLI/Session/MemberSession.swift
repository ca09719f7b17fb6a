import ArgumentParser
import ConferClient
import ConferSession
import Foundation
import Synchronization

/// Who a host lets in: `all`, `none`, a comma-separated list of identities (others are
/// declined), or `manual`: each request waits for the person at the keyboard.
enum ApprovalPolicy: ExpressibleByArgument, Sendable, Equatable {
    case all
    case none
    case only(Set<String>)
    /// Leave each request waiting for `approve ID` or `decline ID` (`--commands`).
    case manual

    init?(argument: String) {
        switch argument {
        case "all": self = .all
        case "none": self = .none
        case "manual": self = .manual
        default:
            let identities = argument.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !identities.isEmpty else { return nil }
            self = .only(Set(identities))
        }
    }

    /// Whether `identity` is let in; nil when a person answers.
    func admits(_ identity: String) -> Bool? {
        switch self {
        case .all: true
        case .none: false
        case .only(let identities): identities.contains(identity)
        case .manual: nil
        }
    }
}

/// What `confer host` and `confer join` write with `--report`.
struct MemberReport: Codable, CommandReport {
    var identity: String
    var role: String
    var room: String
    var admitted: Bool
    /// The member's slot in the room (its SSRCs and, with a synthetic camera, its colour).
    var slot: UInt32?
    var endReason: String?
    var members: [String]
    var host: String?
    var eventCounts: [String: Int]
    var messages: [String]
    var approved: [String]
    var declined: [String]
    var connectInfo: ConnectInfo?
    var media: MemberMediaReport?

    var humanSummary: [String] {
        var lines = ["\(identity) (\(role)) in \(room): \(admitted ? "admitted" : "not admitted"), ended: \(endReason ?? "left")"]
        // Never admitted, it saw no members: an empty list would read as an empty room.
        if admitted { lines.append("members at the end: \(members.isEmpty ? "none" : members.joined(separator: ", "))") }
        let answers = [("approved", approved), ("declined", declined)].filter { !$0.1.isEmpty }
        if !answers.isEmpty { lines.append(answers.map { "\($0.0): \($0.1.joined(separator: ", "))" }.joined(separator: "; ")) }
        if !messages.isEmpty { lines.append("messages: \(messages.count)") }
        if let media { lines += media.humanSummary }
        return lines
    }
}

/// One member's run for `confer host` / `confer join`: join, answer requests (host), keep
/// printing events, run the media, leave after the duration or end when the server ends
/// the session.
struct MemberSession {
    let client: MeetingClient
    let printer: EventPrinter
    let approval: ApprovalPolicy?
    let duration: Double?
    let say: String?
    let cutSignalingAfter: Double?
    let reportPath: String?
    /// Whether the report goes on stdout as JSON (`--json`) instead of the human summary.
    var printsReport = false
    /// Take commands typed on standard input (``MeetingConsole``).
    var commands = false

    /// Exit status for a join refused (token, room, limit) or declined.
    static let refusedStatus: Int32 = 3
    /// Exit status for a session the server ended (kicked, room closed, replaced, timed out, shutdown).
    static let endedStatus: Int32 = 4

    /// Runs the session; with `media`, the member's media starts once admitted and stops at the end.
    func run(media options: MeetingMediaOptions? = nil, output: String? = nil) async throws {
        let log = EventLog()
        let events = client.events.events
        let client = client
        let printer = printer
        let approval = approval
        let listener = Task {
            for await event in events {
                printer.print(event, as: client.identity)
                await log.record(event)
                guard let approval else { continue }
                var waiting: [String] = []
                if case .room(.joinRequested(let request)) = event { waiting = [request.identity] }
                if case .joined(let snapshot) = event, snapshot.host == client.identity { waiting = snapshot.joinRequests.map(\.identity) }
                for identity in waiting {
                    switch approval.admits(identity) {
                    case true?: await client.approve(identity)
                    case false?: await client.decline(identity)
                    case nil:
                        if case .room = event { printer.note("approve \(identity) or decline \(identity)?") }
                    }
                }
            }
        }

        let snapshot: RoomSnapshot
        do { snapshot = try await client.join() } catch let error as MeetingClientError {
            // The client's events end with the session: let the listener print the refusal
            // (with --events) before the command exits, but wait no more than a second.
            let deadline = Task {
                try? await Task.sleep(for: .seconds(1))
                listener.cancel()
            }
            await listener.value
            deadline.cancel()
            FileHandle.standardError.write(Data("confer: \(error)\n".utf8))
            try await writeReport(log: log, admitted: false, end: Self.reason(error), media: nil)
            switch error {
            case .refused, .ended(.declined): throw ExitCode(Self.refusedStatus)
            case .ended: throw ExitCode(Self.endedStatus)
            case .unreachable, .invalidConfiguration: throw ExitCode.failure
            }
        }

        _ = snapshot
        if let say { await client.sendMessage(say) }
        let media = options.map { MeetingMedia(client: client, options: $0) }
        await media?.start()
        let figures = Task { await Self.printFigures(client: client, media: media, printer: printer) }
        let firstFrame = Task {
            guard let media else { return }
            for await time in media.firstFrame.values where time != nil {
                printer.print("firstFrame", ["identity": client.identity])
                printer.note("first composite frame decoded")
                return
            }
        }
        if let cutSignalingAfter {
            Task {
                try await Task.sleep(for: .milliseconds(Int64(cutSignalingAfter * 1000)))
                printer.note("cutting the signaling connection (--cut-signaling-after)")
                await client.dropConnection()
            }
        }

        // What the person at the keyboard types, with --commands: `leave` ends the wait, and
        // after `close` the room's closing is this member's doing, not an end to report.
        let (leaving, leave) = AsyncStream<Void>.makeStream()
        let closing = Atomic<Bool>(false)
        let console = Task {
            guard commands else { return }
            await MeetingConsole(client: client, printer: printer).run(StandardInputLines.stream()) { outcome in
                switch outcome {
                case .leave: leave.yield()
                case .closing: closing.store(true, ordering: .relaxed)
                }
            }
        }
        let end = await Self.waitForEnd(client: client, duration: duration, mediaFailure: media?.failure, leave: leaving)
        console.cancel()
        figures.cancel()
        firstFrame.cancel()
        // Media that stopped by itself (a file it cannot read or write) ends the session: a
        // member who asked to send and record and does neither has nothing to stay for.
        let mediaFailure = media?.failure.current
        var report: MemberMediaReport?
        if let media {
            report = MemberMediaReport(await media.stop(), output: mediaFailure == nil ? output ?? options?.videoOutput : nil)
        }
        if end == nil { await client.leave() }
        listener.cancel()
        if let mediaFailure {
            printer.print("mediaFailed", ["identity": client.identity, "error": mediaFailure])
            try await writeReport(log: log, admitted: true, end: "mediaFailed", media: report)
            FileHandle.standardError.write(Data("confer: the media could not run: \(mediaFailure)\n".utf8))
            throw ExitCode.failure
        }
        try await writeReport(log: log, admitted: true, end: end?.rawValue, media: report)
        if let end, end != .left, !(end == .roomClosed && closing.load(ordering: .relaxed)) {
            FileHandle.standardError.write(Data("confer: the session ended: \(end.rawValue)\n".utf8))
            throw ExitCode(Self.endedStatus)
        }
    }

    /// With `--events`, this member's media figures as the media publishes them (once a
    /// second from its start: none before, so no event reads zeros for media that is
    /// running), and (the host) every member's reported ones, once a second.
    static func printFigures(client: MeetingClient, media: MeetingMedia?, printer: EventPrinter) async {
        guard printer.json else { return }
        var printed = 0.0
        var nextMembers = ContinuousClock.now + .seconds(1)
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            if Task.isCancelled { return }
            if let media {
                let figures = await media.figures
                // Published anew (a restarted media, as an observer let in to send, counts
                // its seconds from its own start).
                if figures.seconds > 0, figures.seconds != printed {
                    printed = figures.seconds
                    printer.print("connectInfo", ["identity": client.identity, "info": EventPrinter.encoded(figures)])
                }
            }
            guard ContinuousClock.now >= nextMembers else { continue }
            nextMembers = nextMembers + .seconds(1)
            guard let room = client.room.current, room.host == client.identity else { continue }
            for member in room.members where member.identity != client.identity {
                guard let info = member.connectInfo else { continue }
                printer.print("memberConnectInfo", ["identity": member.identity, "info": EventPrinter.encoded(info)])
            }
        }
    }

    /// Waits for the duration (nil: until the session ends, or the media fails); the reason if
    /// the server ended it first.
    static func waitForEnd(client: MeetingClient, duration: Double?, mediaFailure: ObservedValue<String?>? = nil,
                           leave: AsyncStream<Void>? = nil) async -> DisconnectReason? {
        await withTaskGroup(of: DisconnectReason?.self) { group in
            if let leave {
                group.addTask {
                    for await _ in leave { return nil }
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                    return nil
                }
            }
            if let mediaFailure {
                group.addTask {
                    for await failure in mediaFailure.values where failure != nil { return nil }
                    // The stream ended by cancellation: another task ended the wait.
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                    return nil
                }
            }
            group.addTask {
                if let duration { try? await Task.sleep(for: .milliseconds(Int64(duration * 1000))) } else {
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                }
                return nil
            }
            group.addTask {
                await InterruptSignal.wait()
                return nil
            }
            group.addTask {
                for await state in client.connection.values {
                    if case .disconnected(let reason?) = state { return reason }
                }
                return Task.isCancelled ? nil : .timedOut
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// How a join that failed ended, for the report: a disconnect reason, or what kept the
    /// session from the server ("unreachable", "invalidConfiguration").
    static func reason(_ error: MeetingClientError) -> String {
        switch error {
        case .refused: DisconnectReason.refused.rawValue
        case .ended(let reason): reason.rawValue
        case .unreachable: "unreachable"
        case .invalidConfiguration: "invalidConfiguration"
        }
    }

    private func writeReport(log: EventLog, admitted: Bool, end: String?, media: MemberMediaReport?) async throws {
        let snapshot = client.room.current
        // The role at the end: a host that handed the room over, or an observer let in as a
        // participant, is no longer what the token said.
        let role = snapshot?.member(client.identity)?.role ?? client.claims.role
        let report = MemberReport(identity: client.identity, role: role.rawValue, room: client.claims.room, admitted: admitted,
                                  slot: snapshot?.member(client.identity)?.slot,
                                  endReason: end, members: snapshot?.members.map(\.identity) ?? [], host: snapshot?.host,
                                  eventCounts: await log.counts, messages: snapshot?.messages.map(\.text) ?? [],
                                  approved: await log.approvedIdentities, declined: await log.declinedIdentities,
                                  connectInfo: media?.connectInfo, media: media)
        if let reportPath { try reportJSON(report).write(to: URL(fileURLWithPath: reportPath)) }
        if printsReport {
            FileHandle.standardOutput.write(try reportJSON(report) + Data("\n".utf8))
        } else if !printer.json, !printer.quiet {
            FileHandle.standardError.write(Data((report.humanSummary.joined(separator: "\n") + "\n").utf8))
        }
    }
}

/// Counts of what happened, for the report.
actor EventLog {
    private(set) var counts: [String: Int] = [:]
    private(set) var approvedIdentities: [String] = []
    private(set) var declinedIdentities: [String] = []

    func record(_ event: MeetingEvent) {
        let name = EventPrinter.object(event)["event"] as? String ?? "unknown"
        counts[name, default: 0] += 1
        // The host hears how each request ended, whoever answered it (--approve, or typed):
        // the report lists what the server did, not what was asked.
        if case .room(.joinRequestEnded(let identity, let outcome)) = event {
            switch outcome {
            case .approved: approvedIdentities.append(identity)
            case .declined: declinedIdentities.append(identity)
            default: break
            }
        }
    }
}
