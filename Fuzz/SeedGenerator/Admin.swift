import ConferSession
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Seeds for FuzzAdminAnswer: a byte that picks AdminClient's call, then the answer as
// `confer serve` writes it (Hummingbird's head with a fixed date, JSON with sorted keys):
// every call's success, the refusals each can meet, and answers chunked, closing, or behind
// an interim 100 Continue.

/// The admin answers, each after the number of the call it answers (see FuzzAdminAnswer).
func adminSeeds(_ seeds: inout SeedWriter, server: [ServerMessage]) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    func json(_ value: some Encodable) -> [UInt8] { Array(try! encoder.encode(value)) }
    func refusal(_ code: String, _ message: String) -> [UInt8] { json(["error": code, "message": message]) }

    let summaries = [
        RoomSummary(room: RoomInfo(id: "r", name: "R"), host: "host", members: 3, online: 2, waiting: 1,
                    created: SessionTime(milliseconds: 1_795_934_360_927)),
        RoomSummary(room: RoomInfo(id: "q3 review/β?", name: "Q3", description: "quarterly"), host: nil, members: 0,
                    online: 0, waiting: 0, created: SessionTime(milliseconds: 1_795_934_361_000)),
    ]
    // The largest snapshot the room scripts sent: members, requests, chat and media figures.
    let snapshots = server.compactMap { message -> RoomSnapshot? in
        if case .joined(let snapshot) = message { return snapshot }
        return nil
    }
    let snapshot = snapshots.max { json($0).count < json($1).count }!

    let calls: [(call: UInt8, name: String, status: String, body: [UInt8]?)] = [
        (0, "rooms", "200 OK", json(summaries)),
        (0, "rooms-none", "200 OK", json([RoomSummary]())),
        (0, "rooms-unauthorized", "401 Unauthorized", refusal("Unauthorized", "missing or wrong admin token (Authorization: Bearer TOKEN)")),
        (0, "rooms-admin-off", "403 Forbidden", refusal("Forbidden", "the admin API is off: start the server with --admin-token")),
        (1, "room", "200 OK", json(snapshot)),
        (1, "room-unknown", "404 Not Found", refusal("unknownRequest", "no such room")),
        (2, "create", "201 Created", json(summaries[0])),
        (2, "create-exists", "409 Conflict", refusal("outOfOrder", "the room exists already")),
        (2, "create-bad", "400 Bad Request", refusal("Bad Request", #"expected {"id": ROOM, "name"?, "description"?, "memberLimit"?}"#)),
        (3, "close", "204 No Content", nil),
        (3, "close-gone", "410 Gone", refusal("roomClosed", "the room is closed")),
        (4, "send", "204 No Content", nil),
        (5, "kick", "204 No Content", nil),
        (5, "kick-unknown", "404 Not Found", refusal("unknownMember", "no such member in the room")),
        (6, "role", "204 No Content", nil),
        (6, "role-refused", "409 Conflict", refusal("wrongRole", "the role cannot change that way (wrongRole)")),
        (7, "forward", "204 No Content", nil),
        (7, "forward-bad", "400 Bad Request", refusal("invalidParameters", "video must be an IP address and a port, A.B.C.D:PORT or [IPv6]:PORT, the port from 1 to 65535 (got x)")),
    ]
    var files: [(String, [UInt8])] = []
    for entry in calls {
        files.append((entry.name, [entry.call] + answer(entry.status, entry.body)))
    }
    files.append(("rooms-chunked", [0] + answer("200 OK", json(summaries), chunked: true)))
    files.append(("room-closing", [1] + answer("200 OK", json(snapshot), closes: true)))
    files.append(("create-continue", [2] + Array("HTTP/1.1 100 Continue\r\n\r\n".utf8) + answer("201 Created", json(summaries[1]))))
    seeds.write("FuzzAdminAnswer", files)
}

/// An answer with `status`, as Hummingbird writes it.
private func answer(_ status: String, _ body: [UInt8]?, chunked: Bool = false, closes: Bool = false) -> [UInt8] {
    var head = "HTTP/1.1 \(status)\r\n"
    if let body {
        head += "Content-Type: application/json\r\n"
        head += chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(body.count)\r\n"
    }
    if closes { head += "Connection: close\r\n" }
    head += "Date: Sun, 29 Nov 2026 06:39:20 GMT\r\nServer: confer\r\n\r\n"
    guard let body else { return Array(head.utf8) }
    guard chunked else { return Array(head.utf8) + body }
    return Array(head.utf8) + Array("\(String(body.count, radix: 16))\r\n".utf8) + body + Array("\r\n0\r\n\r\n".utf8)
}
