import ConferSession
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// `GET /v1/rooms/ROOM/watch` upgraded to a WebSocket: an administrator's live view of a room.
///
/// The administrator speaks first: any message (``ConferClient``'s `RoomWatch` sends
/// `{"watch": ROOM}`). Until then the server sends nothing, because a frame it sent at once
/// could share a read with the `101 Switching Protocols` answer, and some WebSocket clients
/// (swift-websocket's among them: about one connection in 150 on a loaded machine) lose such
/// a frame and then wait forever. One that says nothing for ``firstMessageTimeout`` is closed
/// as timed out, as a member that does not join is.
///
/// With `Authorization: Bearer ADMIN-TOKEN` on the upgrade, the server then sends the room as
/// `GET /v1/rooms/ROOM` answers it, once at once and again at every change, one text message
/// each, and closes with ``DisconnectReason/roomClosed``'s code when the room closes and
/// ``DisconnectReason/serverShutdown``'s when the server stops. Without the token, or for a
/// room that is not open, it sends the admin API's error object (`{"error", "message"}`, the
/// same codes as over HTTP) and closes with ``DisconnectReason/refused``'s code. What the
/// administrator sends after its first message is read and ignored.
struct RoomWatchConnection {
    /// How long the server waits for the administrator's first message.
    static let firstMessageTimeout: Duration = .seconds(10)

    let hub: RoomHub
    let adminToken: String?

    /// Serves one administrator whose upgrade carried `authorization` and named `room`.
    func run(authorization: String?, room: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        var frames = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        guard try await frames.firstText(within: Self.firstMessageTimeout, closing: outbound, reason: "no first message") != nil else { return }
        guard let adminToken else {
            return try await refuse(outbound, code: "Forbidden", "the admin API is off: start the server with --admin-token")
        }
        guard let authorization, AdminAuthMiddleware<BasicRequestContext>.equal(authorization, "Bearer " + adminToken) else {
            return try await refuse(outbound, code: "Unauthorized", "missing or wrong admin token (Authorization: Bearer TOKEN)")
        }
        guard let updates = await hub.watch(room) else {
            return try await refuse(outbound, code: SessionRefusal.unknownRequest.rawValue, "no such room")
        }
        let outcome: Result<Void, any Error>
        do {
            try await follow(updates, frames: &frames, outbound: outbound)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await hub.watchClosed()
        try outcome.get()
    }

    /// Sends each update until the watch ends, then says why; or stops when the administrator goes.
    private func follow(_ updates: AsyncStream<RoomWatchUpdate>, frames: inout WebSocketInboundMessageStream.AsyncIterator,
                        outbound: WebSocketOutboundWriter) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in updates {
                    try await outbound.write(.text(update.json))
                }
                // Cancelled: the administrator went. Otherwise the room closed or the server stops.
                guard !Task.isCancelled else { return }
                let reason: DisconnectReason = await hub.isShutDown ? .serverShutdown : .roomClosed
                try await outbound.close(.unknown(reason.closeCode), reason: reason.rawValue)
            }
            // Read until the administrator goes away (or answers the close above), which ends the watch.
            while try await frames.next() != nil {}
            group.cancelAll()
        }
    }

    private func refuse(_ outbound: WebSocketOutboundWriter, code: String, _ message: String) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(["error": code, "message": message])) ?? Data()
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
        try await outbound.close(.unknown(DisconnectReason.refused.closeCode), reason: code)
    }
}
