import ConferClient
import ConferSession
import Foundation

/// Carries out what a person types into `confer call --commands`, like ``MeetingConsole``
/// for a meeting: each line parsed, done on the call, and said back.
struct CallConsole {
    let call: Call
    let printer: EventPrinter
    /// Why this device cannot take the caller's video (its output cannot hold the codec that
    /// rang with the call): an `accept` is then answered here, and the call keeps ringing.
    var cannotAccept: String?

    /// Reads `lines` until they end or the call does.
    func run(_ lines: some AsyncSequence<String, Never>) async {
        for await line in lines {
            guard let action = ConsoleLine.action(from: line, parse: CallAction.parse, printer: printer, fields: ["call": call.id]) else { continue }
            if case .accept = action, let cannotAccept {
                printer.print("commandError", ["call": call.id, "line": line, "error": cannotAccept])
                FileHandle.standardError.write(Data("confer: accept: \(cannotAccept)\n".utf8))
                continue
            }
            printer.print("command", ["call": call.id, "line": line, "command": action.name])
            await perform(action)
        }
    }

    private func perform(_ action: CallAction) async {
        switch action {
        case .accept:
            await call.accept()
        case .decline:
            await call.decline()
        case .setDevice(.microphone, let on):
            await call.mute(!on)
            printer.note("turning your microphone \(on ? "on" : "off")")
        case .setDevice(.camera, let on):
            if on { await call.startVideo() } else { await call.stopVideo() }
            printer.note("turning your camera \(on ? "on" : "off")")
        case .set(let key, let value):
            await call.setItems([key: value])
        case .unset(let key):
            await call.deleteItems([key])
        case .hangUp:
            printer.note("hanging up")
            await call.end()
        case .help:
            FileHandle.standardError.write(Data((CallAction.usage + "\n").utf8))
        }
    }
}
