import ConferSession
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// `GET /v1/rooms/ROOM/watch` upgraded to a WebSocket: an administrator's live view of a room.
///
/// With `Authorization: Bearer ADMIN-TOKEN` on the upgrade, the server sends the room as
/// `GET /v1/rooms/ROOM` answers it, once at once and again at every change, one text message
/// each, and closes with ``DisconnectReason/roomClosed``'s code when the room closes and
/// ``DisconnectReason/serverShutdown``'s when the server stops. Without the token, or for a
/// room that is not open, it sends the admin API's error object (`{"error", "message"}`, the
/// same codes as over HTTP) and closes with ``DisconnectReason/refused``'s code. What the
/// administrator sends is read and ignored.
struct RoomWatchConnection {
    /// The path, under which `:room` names the room.
    static let path = "v1/rooms/:room/watch"

    let hub: RoomHub
    let adminToken: String?

    func run(request: Request, room: String?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        guard let adminToken else {
            return try await refuse(outbound, code: "Forbidden", "the admin API is off: start the server with --admin-token")
        }
        guard let header = request.headers[.authorization], AdminAuthMiddleware<BasicRequestContext>.equal(header, "Bearer " + adminToken) else {
            return try await refuse(outbound, code: "Unauthorized", "missing or wrong admin token (Authorization: Bearer TOKEN)")
        }
        guard let room, let updates = await hub.watch(room) else {
            return try await refuse(outbound, code: SessionRefusal.unknownRequest.rawValue, "no such room")
        }
        let outcome: Result<Void, any Error>
        do {
            try await follow(updates, inbound: inbound, outbound: outbound)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await hub.watchClosed()
        try outcome.get()
    }

    /// Sends each update until the watch ends, then says why; or stops when the administrator goes.
    private func follow(_ updates: AsyncStream<RoomWatchUpdate>, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await update in updates {
                    try await outbound.write(.text(update.json))
                }
                return !Task.isCancelled
            }
            group.addTask {
                // Read until the administrator goes away, which ends the watch.
                for try await _ in inbound {}
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard ended else { return }
        let reason: DisconnectReason = await hub.isShutDown ? .serverShutdown : .roomClosed
        try await outbound.close(.unknown(reason.closeCode), reason: reason.rawValue)
    }

    private func refuse(_ outbound: WebSocketOutboundWriter, code: String, _ message: String) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(["error": code, "message": message])) ?? Data()
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
        try await outbound.close(.unknown(DisconnectReason.refused.closeCode), reason: code)
    }
}
