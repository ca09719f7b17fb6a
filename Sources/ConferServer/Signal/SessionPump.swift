import ConferSession
import HummingbirdWebSocket
import Logging

/// The part of a WebSocket session that meetings and calls share once the first message has
/// admitted it: a writer sending what the hub queued (until a close), and a reader that
/// rate-limits, decodes and hands on every message, answering what it cannot read with a
/// typed refusal. Returns when the connection ends, after `closed` has run.
struct SessionPump<Message: Sendable> {
    let decode: @Sendable ([UInt8]) throws(SignalDecodeError) -> Message
    let refuse: @Sendable (SessionRefusal) async -> Void
    let handle: @Sendable (Message) async -> Void
    let closed: @Sendable () async -> Void

    func run(messages iterator: WebSocketInboundMessageStream.AsyncIterator, outbound: WebSocketOutboundWriter,
             queue: AsyncStream<SessionOutbound>, continuation: AsyncStream<SessionOutbound>.Continuation, logger: Logger) async throws {
        var messages = iterator
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in queue {
                    switch item {
                    case .text(let text): try await outbound.write(.text(text))
                    case .close(let code, let reason):
                        try await outbound.close(.unknown(code), reason: reason)
                        return
                    }
                }
            }
            var limiter = MessageRateLimiter()
            do {
                while let bytes = try await messages.nextText() {
                    guard limiter.admit(at: SessionTime.now()) else {
                        await refuse(.rateLimited)
                        continue
                    }
                    let message: Message
                    do throws(SignalDecodeError) { message = try decode(bytes) } catch {
                        await refuse(error.refusal)
                        continue
                    }
                    await handle(message)
                }
            } catch {
                logger.debug("connection read failed: \(error)")
            }
            await closed()
            continuation.finish()
            try await group.waitForAll()
        }
    }
}
