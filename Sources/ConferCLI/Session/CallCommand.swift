import ArgumentParser
import ConferClient
import ConferLive
import ConferMedia
import ConferSession
import Foundation
import Synchronization

/// How a device answers a call that rings: at once, or (`manual`) as the person at the
/// keyboard types.
enum CallAnswer: String, ExpressibleByArgument, CaseIterable {
    case accept, decline, ignore, manual
}

struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Place a call (--to) or answer one, send a camera and voice straight to the other side, and say how it ended.",
        discussion: """
        With --to, dials that user: every device where the user is signed in rings. Without --to, signs in as \
        --device and waits for a call, then answers as --answer says (manual: you type accept or decline). With \
        --commands, type during the call: mic on|off, camera on|off, set KEY=VALUE, unset KEY, hangup. Once answered, the two devices send \
        Opus (and, with --video, VP8, VP9 or H.264 up to 720p at 24 fps, each side in its own --codec) to each other directly over SRTP. The call's \
        end result is always printed (stdout; --json for the call's log record) and sets the exit status: \
        0 completed, 3 refused (token; unknown, offline or busy user), 4 the server ended the connection, 5 not \
        answered (declined, canceled, no answer, another device answered), 6 failed (timed out, connection lost, \
        accept failed, or the caller's video could not be written to -o, so this device declined).
          confer call --server http://127.0.0.1:7880 --token "$BOB" --device phone          # answers
          confer call --server http://127.0.0.1:7880 --token "$ALICE" --to bob --video --duration 10 -o bob.y4m
        """)

    @OptionGroup var connection: ServerOptions
    @Option(help: "This device's name, unique among the user's devices.")
    var device = "cli"
    @Option(help: "Call this user (otherwise wait for a call to answer).")
    var to: String?
    @Flag(help: "A video call (voice only otherwise).")
    var video = false
    @Option(help: "The video codec this side sends: vp8, vp9 or h264 (the other side may send another).")
    var codec: VideoCodec = .vp8
    @OptionGroup var files: MediaFileOptions
    @OptionGroup var mediaAddress: MediaAddressOptions
    @Option(help: "Seconds to stay connected, then hang up (default: until the other side does, or Ctrl-C).")
    var duration: Double?
    @Option(help: "Caller: hang up after this many seconds if the call has not connected.")
    var cancelAfter: Double?
    @Option(help: "Callee: accept, decline or ignore a call that rings, or manual (you type accept or decline; needs --commands).")
    var answer: CallAnswer = .accept
    @Option(help: "Callee: seconds to let it ring before answering.")
    var answerAfter: Double = 0
    @Option(help: "Callee: seconds to wait for a call before giving up (default: until Ctrl-C).")
    var wait: Double?
    @Option(help: "Caller: seconds the call rings before it ends unanswered (the server's by default).")
    var ringingTimeout: Double?
    @Option(help: "Caller: seconds an answered call may take to connect media (the server's by default).")
    var connectionTimeout: Double?
    @Option(help: "A custom item KEY=VALUE for the call (repeat for more).")
    var item: [String] = []
    @Flag(help: "Signaling only: answer or dial but never start media (the call times out unless the other side hangs up).")
    var noMedia = false
    @Flag(help: "Take commands typed on standard input: accept, decline, mic on|off, camera on|off, set KEY=VALUE, unset KEY, hangup (type help).")
    var commands = false
    @Flag(help: "Print the call's log record as JSON at the end.")
    var json = false
    @OptionGroup var reporting: EventOutputOptions

    static let refusedStatus: Int32 = 3
    static let endedStatus: Int32 = 4
    static let notAnsweredStatus: Int32 = 5
    static let failedStatus: Int32 = 6

    func validate() throws {
        let checks: [(String, Double?)] = [("--duration", duration), ("--cancel-after", cancelAfter), ("--wait", wait),
                                           ("--ringing-timeout", ringingTimeout), ("--connection-timeout", connectionTimeout)]
        for (name, value) in checks {
            if let value, !(value > 0 && value <= 86_400) { throw ValidationError("\(name) must be between 0 and 86400 seconds") }
        }
        if answer == .manual, !commands {
            throw ValidationError("--answer manual leaves the answer to you: add --commands to type accept or decline")
        }
        if !(answerAfter >= 0 && answerAfter <= 3600) { throw ValidationError("--answer-after must be between 0 and 3600 seconds") }
        if files.cameraSize.width > CallMediaOptions.maximumSize.width || files.cameraSize.height > CallMediaOptions.maximumSize.height {
            throw ValidationError("--camera-size is at most 1280x720 for a call")
        }
        if to == nil, cancelAfter != nil || ringingTimeout != nil || connectionTimeout != nil || !item.isEmpty {
            throw ValidationError("--cancel-after, --ringing-timeout, --connection-timeout and --item are for the caller (with --to)")
        }
        _ = try items()
    }

    func items() throws -> [String: String] {
        var items: [String: String] = [:]
        for text in item {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { throw ValidationError("--item must be KEY=VALUE (got \(text))") }
            items[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return items
    }

    var mediaOptions: CallMediaOptions {
        var options = CallMediaOptions()
        options.codec = codec.mediaCodec
        options.setFiles(files)
        return options
    }

    func run() async throws {
        // Where media binds is settled before signing in: a call is never placed or answered
        // by a device that then cannot say where its media goes.
        var chosen = mediaOptions
        if !noMedia { try await mediaAddress.apply(to: &chosen, server: connection.server) }
        let options = chosen
        let client = try connection.callClient(device: device)
        let printer = reporting.printer
        do { try await client.start() } catch {
            try Self.fail(error)
        }
        printer.print("signedIn", ["identity": client.identity, "device": client.device])
        printer.note("signed in as \(client.identity) on \(client.device)")

        let call: Call
        if let to {
            do {
                call = try await client.dial(to, video: video, codec: video ? codec.rawValue : nil, customItems: try items().isEmpty ? nil : try items(),
                                             ringingTimeout: ringingTimeout.map(Self.duration), connectionTimeout: connectionTimeout.map(Self.duration))
            } catch {
                await client.stop()
                try Self.fail(error)
            }
            printer.print("dialed", ["call": call.id, "to": to, "video": video])
            printer.note("calling \(to) (call \(call.id))")
        } else {
            guard let ringing = await Self.firstRinging(client: client, wait: wait) else {
                await client.stop()
                FileHandle.standardError.write(Data("confer: no call rang\(wait.map { " within \($0) s" } ?? "")\n".utf8))
                throw ExitCode(Self.notAnsweredStatus)
            }
            call = ringing
            let offered = call.state.current.callerCodec
            printer.print("incoming", ["call": call.id, "from": call.peer, "video": call.state.current.record.video, "codec": offered ?? NSNull()])
            printer.note("\(call.peer) is calling (call \(call.id)\(offered.map { ", \($0) video" } ?? ""))")
        }
        // What the caller sends, told while it rings, may not fit the file the video is to go
        // to (H.264 into .ivf): accepting would only fail once media starts.
        let unwritable = to == nil && !noMedia ? Self.outputProblem(offered: call.state.current.callerCodec, output: files.output) : nil
        var declinedUnwritable = false

        let watcher = Task { await Self.follow(call, printer: printer) }
        let console = Task {
            guard commands else { return }
            await CallConsole(call: call, printer: printer, cannotAccept: unwritable).run(StandardInputLines.stream())
        }
        // Started here, or (answered at the keyboard) by the task that sees the answer.
        let media = Mutex<Task<LiveMeetingControl.Figures, any Error>?>(nil)
        let control = LiveMeetingControl()
        let noMedia = noMedia
        @Sendable func startMedia() {
            guard !noMedia else { return }
            media.withLock { media in
                guard media == nil else { return }
                media = Task { try await CallMediaSession.run(call, options: options, control: control) { _ in } }
            }
        }
        var answering: Task<Void, Never>?

        if to != nil {
            startMedia()
            if let cancelAfter {
                Task {
                    try await Task.sleep(for: Self.duration(cancelAfter))
                    if call.state.current.record.connected == nil, call.state.current.phase != .ended {
                        printer.note("hanging up (--cancel-after)")
                        await call.end()
                    }
                }
            }
        } else {
            if answerAfter > 0 { try? await Task.sleep(for: Self.duration(answerAfter)) }
            var accepted = false
            if call.state.current.phase == .ringing {
                switch answer {
                case .accept:
                    if let unwritable {
                        printError("confer: declining: \(unwritable)")
                        await call.decline()
                        declinedUnwritable = true
                    } else {
                        await call.accept()
                        startMedia()
                        accepted = true
                    }
                case .decline: await call.decline()
                case .ignore: break
                case .manual:
                    if let unwritable { printer.note("this device cannot accept: \(unwritable)") }
                    printer.note("type accept or decline")
                }
            }
            if !accepted, commands {
                // Answered at the keyboard: the media starts once the server has this device's answer.
                let device = device
                answering = Task {
                    for await info in call.state.values where info.phase != .ringing {
                        if info.phase != .ended, info.record.acceptedDevice == device { startMedia() }
                        return
                    }
                }
            }
        }

        // Hang up after --duration of connected time; Ctrl-C hangs up at once.
        let ender = Task {
            guard let duration else { return }
            for await info in call.state.values where info.phase == .connected { break }
            try? await Task.sleep(for: Self.duration(duration))
            if call.state.current.phase != .ended { await call.end() }
        }
        let interrupt = ender.cancelledOnInterrupt()
        let hangUpOnInterrupt = Task {
            while !ender.isCancelled, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
            if !Task.isCancelled, call.state.current.phase != .ended {
                printer.note("hanging up (interrupted)")
                await call.end()
            }
        }
        let info = await call.ended()
        console.cancel()
        answering?.cancel()
        interrupt.cancel()
        hangUpOnInterrupt.cancel()
        ender.cancel()
        control.stop()
        // Media that could not start ends the call (acceptFailed, or the caller hangs up);
        // say why, or the user sees the result and not its cause.
        var figures: LiveMeetingControl.Figures?
        var mediaError: String?
        do { figures = try await media.withLock { $0 }?.value } catch { mediaError = "\(error)" }
        if let mediaError {
            printError("confer: this device's media could not run: \(mediaError)")
        }
        await watcher.value
        // The log's record of the call, as the server wrote it.
        var record = info.record
        if let page = try? await client.callLog(CallLogQuery(limit: 5)), let logged = page.calls.first(where: { $0.id == call.id }) {
            record = logged
        }
        await client.stop()
        let result = info.result ?? .connectionLost
        printSummary(call: call, record: record, result: result, figures: figures, mediaError: mediaError, printer: printer)
        // Declined because this device could not take the call: its own options failed it.
        if declinedUnwritable { throw ExitCode(Self.failedStatus) }
        switch result {
        case .completed: return
        case .declined, .canceled, .noAnswer, .otherDeviceAccepted: throw ExitCode(Self.notAnsweredStatus)
        case .dialFailed: throw ExitCode(Self.refusedStatus)
        case .timedOut, .connectionLost, .acceptFailed: throw ExitCode(Self.failedStatus)
        }
    }

    private func printSummary(call: Call, record: CallRecord, result: CallEndResult, figures: LiveMeetingControl.Figures?, mediaError: String?,
                              printer: EventPrinter) {
        var fields: [String: Any] = ["call": call.id, "result": result.rawValue, "record": EventPrinter.encoded(record)]
        if let mediaError { fields["mediaError"] = mediaError }
        if let figures {
            fields["framesReceived"] = figures.framesReceived
            fields["audioPacketsReceived"] = figures.audioPacketsReceived
            fields["framesSent"] = figures.framesSent
            fields["consentGrants"] = figures.consentGrants
            fields["peerMoves"] = figures.peerMoves
            if let seen = figures.reflexiveAddress { fields["reflexiveAddress"] = seen }
            if figures.stunUnanswered { fields["stunUnanswered"] = true }
            if let peer = figures.peerAddress { fields["peerAddress"] = peer }
        }
        printer.print("ended", fields)
        if json {
            var object = fields
            object.removeValue(forKey: "call")
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            }
        } else if !reporting.events {
            let seconds = Double(record.duration.components.seconds) + Double(record.duration.components.attoseconds) / 1e18
            var line = "call \(call.id) \(record.caller) → \(record.callee) (\(record.video ? "video" : "voice")): \(result.rawValue)"
            if record.connected != nil { line += String(format: ", %.1f s connected", seconds) }
            if let by = record.endedBy { line += ", ended by \(by)" }
            if let figures, figures.framesReceived + figures.audioPacketsReceived > 0 {
                line += "; received \(figures.framesReceived) frames, \(figures.audioPacketsReceived) audio packets"
            }
            // Media that never went: the other side's address did not answer (wrong, unreachable or not its own).
            if let figures, figures.consentChallengesSent > 0, figures.consentGrants == 0 {
                line += "; sent nothing: the other side's address never answered a consent check"
            } else if let figures, figures.peerMoves > 0 {
                line += "; the other side's media came from another address than it announced (a NAT's), and went back there"
            }
            if let figures, figures.stunUnanswered { line += "; the server's STUN responder did not answer, so the bound address was announced" }
            print(line)
        }
    }

    /// Prints the call's changes until it ends.
    static func follow(_ call: Call, printer: EventPrinter) async {
        for await event in call.events.events {
            switch event {
            case .phase(let phase):
                printer.print("phase", ["call": call.id, "phase": phase.rawValue])
                if phase != .ended { printer.note("call \(phase.rawValue)") }
            case .remoteSettings(let settings):
                printer.print("remoteSettings", ["call": call.id, "audio": settings.audio, "video": settings.video])
                printer.note("\(call.peer): microphone \(settings.audio ? "on" : "off"), camera \(settings.video ? "on" : "off")")
            case .customItems(let items):
                printer.print("customItems", ["call": call.id, "items": items])
            case .reconnecting(let who):
                printer.print("reconnecting", ["call": call.id, "identity": who])
                printer.note("\(who) is reconnecting")
            case .reconnected(let who):
                printer.print("reconnected", ["call": call.id, "identity": who])
                printer.note("\(who) is back")
            case .media(let media):
                printer.print("media", ["call": call.id, "peer": "\(media.peer.host):\(media.peer.port)", "codec": media.peer.codec,
                                        "width": media.peer.width, "height": media.peer.height])
            case .ended(let result):
                printer.note("call ended: \(result.rawValue)")
            case .refused(let action, let reason):
                printer.print("refused", ["call": call.id, "action": action, "reason": reason.rawValue])
                printer.note("refused: \(action): \(reason.rawValue)")
            }
        }
    }

    /// The first call that rings here, or nil after `wait` seconds or when the client ends.
    static func firstRinging(client: CallClient, wait: Double?) async -> Call? {
        await withTaskGroup(of: Call?.self) { group in
            group.addTask {
                for await calls in client.ringing.values {
                    if let first = calls.first { return first }
                }
                return nil
            }
            if let wait {
                group.addTask {
                    try? await Task.sleep(for: duration(wait))
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Why the video `offered` cannot be written to `output`, with what to use instead; nil
    /// when it can (or nothing is said or written).
    static func outputProblem(offered: String?, output: String?) -> String? {
        guard let offered, let output, let codec = VideoCodec(rawValue: offered)?.mediaCodec else { return nil }
        do { try LiveReceiverOutput.validate(path: output, codec: codec) } catch {
            return "the caller sends \(offered), which -o \(output) cannot hold: answer with -o FILE.y4m (decoded), "
                + (codec == .h264 ? "or FILE.h264" : "or FILE.ivf") + " (as received)"
        }
        return nil
    }

    static func fail(_ error: any Error) throws -> Never {
        FileHandle.standardError.write(Data("confer: \(error)\n".utf8))
        switch error as? CallClientError {
        case .refused: throw ExitCode(refusedStatus)
        case .ended: throw ExitCode(endedStatus)
        default: throw ExitCode.failure
        }
    }

    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }
}
