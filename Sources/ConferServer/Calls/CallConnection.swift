import ConferSession
import ConferTokens
import HummingbirdWebSocket
import Logging

/// One device's WebSocket on `/v1/calls`: the first message must be a `hello` whose token
/// (one for calls) verifies, within the join timeout; after that every message is decoded,
/// rate-limited and handed to the hub, while a writer sends what the hub queues.
struct CallConnection {
    let hub: CallHub
    let issuer: TokenIssuer
    let logger: Logger

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let connection = await hub.newConnection()
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        guard let first = try await messages.firstText(within: SignalConnection.joinTimeout, closing: outbound, reason: "no hello") else {
            return
        }
        let device: CallDevice
        let claims: TokenClaims
        do {
            guard case .hello(let token, let name) = try SignalCodec.decodeCallClient(first) else {
                try await refuse(outbound, reason: .outOfOrder)
                return
            }
            claims = try await issuer.verify(token, room: TokenClaims.callScope, at: SessionTime.now())
            guard !name.isEmpty, name.utf8.count <= 64 else {
                try await refuse(outbound, reason: .invalidParameters)
                return
            }
            device = CallDevice(identity: claims.identity, device: name)
        } catch let error as SignalDecodeError {
            try await refuse(outbound, reason: error.refusal)
            return
        } catch let refusal as SessionRefusal {
            try await refuse(outbound, reason: refusal)
            return
        }

        let address = SessionAddress(identity: device.identity, connection: connection)
        let (queue, continuation) = AsyncStream<SessionOutbound>.makeStream(bufferingPolicy: .bufferingOldest(SignalConnection.outboxLimit))
        await hub.signIn(device, token: claims, on: address, outbox: continuation)

        let hub = hub
        try await SessionPump<CallClientMessage>(
            decode: { bytes throws(SignalDecodeError) in try SignalCodec.decodeCallClient(bytes) },
            refuse: { reason in await hub.refuse(address, action: "message", reason: reason) },
            handle: { message in await hub.handle(message, from: address) },
            closed: { await hub.connectionClosed(address) }
        ).run(messages: messages, outbound: outbound, queue: queue, continuation: continuation, logger: logger)
    }

    private func refuse(_ outbound: WebSocketOutboundWriter, reason: SessionRefusal) async throws {
        await hub.refuse(SessionAddress(identity: "", connection: 0), action: "hello", reason: reason)
        let refusal = CallServerMessage.refused(action: "hello", ref: nil, call: nil, reason: reason)
        try await outbound.write(.text(String(decoding: SignalCodec.encode(refusal), as: UTF8.self)))
        try await outbound.write(.text(String(decoding: SignalCodec.encode(CallServerMessage.disconnected(reason: .refused)), as: UTF8.self)))
        try await outbound.close(.unknown(DisconnectReason.refused.closeCode), reason: reason.rawValue)
    }
}
