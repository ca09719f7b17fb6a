import Foundation
import ConferSession
import Hummingbird

/// The admin HTTP API, LiveKit's RoomService in shape:
///
/// | method and path | does |
/// |---|---|
/// | `GET /v1/rooms` | list rooms |
/// | `POST /v1/rooms` `{"id", "name"?, "description"?, "memberLimit"?}` | open a room ahead of its members |
/// | `GET /v1/rooms/ROOM` | the room, its members and their live figures |
/// | `GET /v1/rooms/ROOM/watch` (WebSocket) | the same, now and at every change (``RoomWatchConnection``) |
/// | `DELETE /v1/rooms/ROOM` | close it |
/// | `POST /v1/rooms/ROOM/messages` `{"text", "to"?}` | send a message |
/// | `DELETE /v1/rooms/ROOM/members/ID` | kick a member |
/// | `PUT /v1/rooms/ROOM/members/ID/role` `{"role"}` | change a member's role |
/// | `PUT /v1/rooms/ROOM/forward` `{"video", "videoRTCP"?, "audio"?, "audioRTCP"?}` | where the host forwards the meeting |
/// | `DELETE /v1/rooms/ROOM/forward` | stop the forward |
enum AdminRoutes {
    struct CreateRoom: Decodable {
        var id: String
        var name: String?
        var description: String?
        var memberLimit: Int?
    }

    struct Say: Decodable {
        var text: String
        var to: [String]?
    }

    struct SetRole: Decodable {
        var role: MemberRole
    }

    static func add(to router: Router<BasicRequestContext>, hub: RoomHub, adminToken: String?) {
        let rooms = router.group("v1/rooms").add(middleware: AdminAuthMiddleware(token: adminToken))
        rooms.get { _, _ in AdminResponse.json(await hub.rooms()) }
        rooms.post { request, context in
            guard let body = try? await request.decode(as: CreateRoom.self, context: context), !body.id.isEmpty, body.id.utf8.count <= 256,
                  (body.memberLimit ?? 1) >= 1 else {
                return AdminResponse.error(.badRequest, #"expected {"id": ROOM, "name"?, "description"?, "memberLimit"?}"#)
            }
            do throws(SessionRefusal) {
                let summary = try await hub.createRoom(RoomInfo(id: body.id, name: body.name, description: body.description ?? ""),
                                                       memberLimit: body.memberLimit)
                return AdminResponse.json(summary, status: .created)
            } catch { return AdminResponse.refused(error) }
        }
        rooms.get(":room") { _, context in
            let id = try parameter("room", context)
            guard let snapshot = await hub.room(id) else { return AdminResponse.refused(.unknownRequest) }
            return AdminResponse.json(snapshot)
        }
        rooms.get(":room/watch") { _, context in
            // Reached by a request that asked for no WebSocket.
            guard await hub.room(try parameter("room", context)) != nil else { return AdminResponse.refused(.unknownRequest) }
            return AdminResponse.error(.upgradeRequired, "watch with a WebSocket (Connection: Upgrade, Upgrade: websocket)")
        }
        rooms.delete(":room") { _, context in
            await run(.close, in: try parameter("room", context), hub: hub)
        }
        rooms.post(":room/messages") { request, context in
            guard let body = try? await request.decode(as: Say.self, context: context) else {
                return AdminResponse.error(.badRequest, #"expected {"text": TEXT, "to"?: [IDENTITY]}"#)
            }
            return await run(.send(to: body.to, text: body.text), in: try parameter("room", context), hub: hub)
        }
        rooms.delete(":room/members/:identity") { _, context in
            await run(.kick(identity: try parameter("identity", context)), in: try parameter("room", context), hub: hub)
        }
        rooms.put(":room/members/:identity/role") { request, context in
            guard let body = try? await request.decode(as: SetRole.self, context: context) else {
                return AdminResponse.error(.badRequest, #"expected {"role": "host" | "participant" | "observer"}"#)
            }
            return await run(.setRole(identity: try parameter("identity", context), role: body.role),
                             in: try parameter("room", context), hub: hub)
        }
        rooms.put(":room/forward") { request, context in
            guard let body = try? await request.decode(as: RoomForward.self, context: context) else {
                return AdminResponse.error(.badRequest, #"expected {"video": "IP:PORT", "videoRTCP"?, "audio"?, "audioRTCP"?}"#)
            }
            do throws(RoomForwardError) { try body.validate() } catch {
                return AdminResponse.error(.badRequest, error.description, code: SessionRefusal.invalidParameters.rawValue)
            }
            return await run(.setForward(body), in: try parameter("room", context), hub: hub)
        }
        rooms.delete(":room/forward") { _, context in
            await run(.setForward(nil), in: try parameter("room", context), hub: hub)
        }
    }

    /// A path parameter as the client meant it: a segment arrives percent-encoded ("a%20b" for
    /// the room "a b"), and a room or member may be named with anything.
    static func parameter(_ name: String, _ context: some RequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    private static func run(_ action: ServerRoom.AdministratorAction, in room: String, hub: RoomHub) async -> Response {
        do throws(SessionRefusal) {
            try await hub.administer(action, in: room)
            return Response(status: .noContent)
        } catch { return AdminResponse.refused(error) }
    }
}
