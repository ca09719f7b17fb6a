import ConferSession
import ConferTokens
import HummingbirdWebSocket
import Logging

/// One member's WebSocket: the first message must be a `join` whose token verifies, within
/// ``joinTimeout``; after that every message is decoded, checked against the rate limit and
/// forwarded to the hub, while a writer sends what the hub queues for this session.
/// Nothing but a refusal ever happens on a connection whose join was refused.
struct SignalConnection {
    static let joinTimeout: Duration = .seconds(10)
    /// Messages queued for a session before the server gives up on a client that does not read.
    static let outboxLimit = 4096

    let hub: RoomHub
    let issuer: TokenIssuer
    let logger: Logger

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let connection = await hub.newConnection()
        // Read frames up to 1 MiB so a message over the protocol's cap is answered with a
        // typed refusal instead of a dropped connection.
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()

        guard let first = try await messages.firstText(within: Self.joinTimeout, closing: outbound, reason: "no join") else { return }
        let claims: TokenClaims
        let devices: DeviceStates?
        do {
            guard case .join(let token, let room, let asked) = try SignalCodec.decodeClient(first) else {
                try await refuse(outbound, action: "join", reason: .outOfOrder)
                return
            }
            // A token for calls names this scope as its room; it admits to no meeting.
            guard room != TokenClaims.callScope else {
                try await refuse(outbound, action: "join", reason: .wrongRoom)
                return
            }
            claims = try await issuer.verify(token, room: room, at: SessionTime.now())
            devices = asked
        } catch let error as SignalDecodeError {
            try await refuse(outbound, action: "join", reason: error.refusal)
            return
        } catch let refusal as SessionRefusal {
            try await refuse(outbound, action: "join", reason: refusal)
            return
        }

        let address = SessionAddress(identity: claims.identity, connection: connection)
        let (queue, continuation) = AsyncStream<SessionOutbound>.makeStream(bufferingPolicy: .bufferingOldest(Self.outboxLimit))
        await hub.join(claims, devices: devices, on: address, outbox: continuation)

        let hub = hub
        try await SessionPump<ClientMessage>(
            decode: { bytes throws(SignalDecodeError) in try SignalCodec.decodeClient(bytes) },
            refuse: { reason in await hub.refuse(address, action: "message", reason: reason) },
            handle: { message in await hub.handle(message, from: address) },
            closed: { await hub.connectionClosed(address) }
        ).run(messages: messages, outbound: outbound, queue: queue, continuation: continuation, logger: logger)
    }

    private func refuse(_ outbound: WebSocketOutboundWriter, action: String, reason: SessionRefusal) async throws {
        await hub.refuse(SessionAddress(identity: "", connection: 0), action: action, reason: reason)
        try await outbound.write(.text(String(decoding: SignalCodec.encode(.refused(action: action, reason: reason)), as: UTF8.self)))
        try await outbound.write(.text(String(decoding: SignalCodec.encode(ServerMessage.disconnected(reason: .refused)), as: UTF8.self)))
        try await outbound.close(.unknown(DisconnectReason.refused.closeCode), reason: reason.rawValue)
    }
}

extension WebSocketInboundMessageStream.AsyncIterator {
    /// The first message's bytes; a connection that says nothing within `timeout` is
    /// closed as timed out (and nil comes back, as for one that closed).
    mutating func firstText(within timeout: Duration, closing outbound: WebSocketOutboundWriter, reason: String) async throws -> [UInt8]? {
        let timer = Task {
            try await Task.sleep(for: timeout)
            try await outbound.close(.unknown(DisconnectReason.timedOut.closeCode), reason: reason)
        }
        defer { timer.cancel() }
        return try await nextText()
    }

    /// The next text message's bytes; a binary message is not part of the protocol and
    /// reads as an empty (malformed) one.
    mutating func nextText() async throws -> [UInt8]? {
        guard let message = try await next() else { return nil }
        if case .text(let text) = message { return Array(text.utf8) }
        return []
    }
}
