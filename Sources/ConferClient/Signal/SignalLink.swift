import ConferSession
import Logging
import NIOSSL
import WSClient

/// One WebSocket to the signaling server: sends `Outgoing` messages in order and hands every
/// `Incoming` one to `receive`. Ends when either side closes; `run` then returns the
/// application close code (4000–4999) if the server sent one. Meetings speak
/// ``ClientMessage``/``ServerMessage`` on it, calls ``CallClientMessage``/``CallServerMessage``.
final class SignalLink<Outgoing: Sendable, Incoming: Sendable>: Sendable {
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let stream: AsyncStream<Outgoing>
    private let encode: @Sendable (Outgoing) -> [UInt8]
    private let decode: @Sendable ([UInt8]) -> Incoming?

    init(encode: @escaping @Sendable (Outgoing) -> [UInt8], decode: @escaping @Sendable ([UInt8]) -> Incoming?) {
        (stream, outgoing) = AsyncStream<Outgoing>.makeStream()
        self.encode = encode
        self.decode = decode
    }

    /// Queues a message; false once the link has closed.
    @discardableResult
    func send(_ message: Outgoing) -> Bool {
        if case .terminated = outgoing.yield(message) { return false }
        return true
    }

    /// Sends `ping(now)` every `interval` until the link closes or the task is cancelled.
    func keepAlive(every interval: Duration, ping: @escaping @Sendable (Int64) -> Outgoing) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, self.send(ping(SessionTime.now().milliseconds)) else { return }
            }
        }
    }

    /// Closes the link from this side (the server sees the connection drop, not a leave).
    func cut() { outgoing.finish() }

    /// Connects and runs until the connection ends. Throws when it could not connect.
    /// `authorization` goes in the upgrade request's `Authorization` header.
    func run(url: String, tls: TLSConfiguration?, sniHostname: String? = nil, authorization: String? = nil, logger: Logger,
             receive: @escaping @Sendable (Incoming) async -> Void) async throws -> UInt16? {
        let stream = stream
        let encode = encode
        let decode = decode
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, sniHostname: sniHostname)
        if let authorization { configuration.additionalHeaders[.authorization] = authorization }
        let close = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tls,
                                                      logger: logger) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in stream {
                        try await outbound.write(.text(String(decoding: encode(message), as: UTF8.self)))
                    }
                    // Finished from this side: close the socket without a leave.
                    try await outbound.close(.goingAway, reason: nil)
                }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    // A message this build cannot read is skipped: the server is newer or broken,
                    // and the session goes on.
                    guard let decoded = decode(Array(text.utf8)) else { continue }
                    await receive(decoded)
                }
                group.cancelAll()
            }
        }
        outgoing.finish()
        if let close, case .unknown(let code) = close.closeCode { return code }
        return nil
    }
}

extension SignalLink where Outgoing == ClientMessage, Incoming == ServerMessage {
    /// A link for a meeting.
    convenience init() {
        self.init(encode: { SignalCodec.encode($0) }, decode: { try? SignalCodec.decodeServer($0) })
    }
}

extension SignalLink where Outgoing == CallClientMessage, Incoming == CallServerMessage {
    /// A link for calls.
    convenience init() {
        self.init(encode: { SignalCodec.encode($0) }, decode: { try? SignalCodec.decodeCallServer($0) })
    }
}
