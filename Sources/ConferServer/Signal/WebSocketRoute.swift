import Foundation

/// Which of the server's WebSockets an upgrade request asks for, read from its path.
///
/// The server picks the WebSocket itself rather than through a Hummingbird WebSocket router:
/// hummingbird-websocket 2.8.1's router keeps each upgrade's handler in a box inside the
/// request context with that context beside it, a reference cycle, so every WebSocket ever
/// opened stayed in memory with its context, logger and handler (about 600 bytes a connection
/// under heaptrack: 0.63 MB a thousand joins, never given back).
enum WebSocketRoute: Equatable, Sendable {
    /// `GET /v1/signal`: a member's signaling (``SignalConnection``).
    case signal
    /// `GET /v1/calls`: a calling device's signaling (``CallConnection``).
    case calls
    /// `GET /v1/rooms/ROOM/watch`: an administrator's watch of ROOM (``RoomWatchConnection``),
    /// ROOM percent-decoded as the admin API's routes read it.
    case watch(room: String)

    /// The route `path` (a request target: a query, empty segments and a trailing slash do
    /// not count) names; nil for any other.
    init?(path: String) {
        let target = path.prefix { $0 != "?" && $0 != "#" }
        let segments = target.split(separator: "/", omittingEmptySubsequences: true)
        switch segments.count {
        case 2 where segments[0] == "v1" && segments[1] == "signal": self = .signal
        case 2 where segments[0] == "v1" && segments[1] == "calls": self = .calls
        case 4 where segments[0] == "v1" && segments[1] == "rooms" && segments[3] == "watch":
            let raw = String(segments[2])
            self = .watch(room: raw.removingPercentEncoding ?? raw)
        default: return nil
        }
    }
}
