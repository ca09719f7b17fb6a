import ConferSession
import Logging
import NIOSSL
import WSClient

/// One WebSocket to the signaling server: sends ``ClientMessage``s in order and hands every
/// ``ServerMessage`` to `receive`. Ends when either side closes; `closed` then gets the
/// application close code (4000–4999) if the server sent one.
final class SignalLink: Sendable {
    private let outgoing: AsyncStream<ClientMessage>.Continuation
    private let stream: AsyncStream<ClientMessage>

    init() { (stream, outgoing) = AsyncStream<ClientMessage>.makeStream() }

    /// Queues a message; false once the link has closed.
    @discardableResult
    func send(_ message: ClientMessage) -> Bool {
        if case .terminated = outgoing.yield(message) { return false }
        return true
    }

    /// Closes the link from this side (the server sees the connection drop, not a leave).
    func cut() { outgoing.finish() }

    /// Connects and runs until the connection ends. Throws when it could not connect.
    func run(url: String, tls: TLSConfiguration?, sniHostname: String? = nil, logger: Logger,
             receive: @escaping @Sendable (ServerMessage) async -> Void) async throws -> UInt16? {
        let stream = stream
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, sniHostname: sniHostname)
        let close = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tls,
                                                      logger: logger) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in stream {
                        try await outbound.write(.text(String(decoding: SignalCodec.encode(message), as: UTF8.self)))
                    }
                    // Finished from this side: close the socket without a leave.
                    try await outbound.close(.goingAway, reason: nil)
                }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    // A message this build cannot read is skipped: the server is newer or broken,
                    // and the session goes on.
                    guard let decoded = try? SignalCodec.decodeServer(Array(text.utf8)) else { continue }
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
