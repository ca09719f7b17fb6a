#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ConferSession
public import Logging
import Synchronization

/// An administrator's live view of one room: the server's `/v1/rooms/ROOM/watch` WebSocket,
/// which sends the room (as `GET /v1/rooms/ROOM` gives it, with every member's live figures)
/// at once and again at every change, until the room closes.
///
/// ```swift
/// let watch = try RoomWatch(server: "http://127.0.0.1:7880", adminToken: token, room: "standup")
/// for try await room in watch.snapshots() { print(room.members.map(\.identity)) }
/// ```
public struct RoomWatch: Sendable {
    /// The room watched.
    public let room: String
    private let endpoint: SignalEndpoint
    private let adminToken: String
    private let logger: Logger

    /// A watch of `room` on `server` (`http://`, `https://`, `ws://` or `wss://`) with the
    /// server's admin token; `trustedCertificates` as for a ``MeetingClientConfiguration``.
    public init(server: String, adminToken: String, room: String, trustedCertificates: String? = nil,
                logger: Logger = Logger(label: "confer.watch")) throws(RoomWatchError) {
        guard !room.isEmpty, room.utf8.count <= 256 else { throw .invalidConfiguration("a room is 1 to 256 bytes") }
        var configuration = MeetingClientConfiguration(server: server, token: "")
        configuration.trustedCertificates = trustedCertificates
        do throws(MeetingClientError) { endpoint = try configuration.webSocketEndpoint(path: "v1/rooms/\(Self.pathSegment(room))/watch") } catch {
            throw .invalidConfiguration(error.description)
        }
        self.room = room
        self.adminToken = adminToken
        self.logger = logger
    }

    /// Watches until the room closes, the server stops or the connection drops, handing
    /// `receive` the room now and after every change; says how it ended.
    public func run(_ receive: @escaping @Sendable (RoomSnapshot) async -> Void) async throws(RoomWatchError) -> RoomWatchEnd {
        let link = SignalLink<[UInt8], Incoming>(encode: { $0 }, decode: Incoming.init)
        // The client speaks first, and only once: the server answers nothing before it (a
        // frame sent with the upgrade's answer is one some clients lose).
        link.send(Array(((try? JSONEncoder().encode(["watch": room])) ?? Data(#"{"watch":""}"#.utf8))))
        let refusal = Mutex<String?>(nil)
        let code: UInt16?
        do {
            // Cancelling the watch closes the WebSocket from this side, which ends `run`.
            code = try await withTaskCancellationHandler {
                try await link.run(url: endpoint.url, tls: endpoint.tls, sniHostname: endpoint.sniHostname,
                                   authorization: "Bearer \(adminToken)", logger: logger) { incoming in
                    switch incoming {
                    case .snapshot(let snapshot): await receive(snapshot)
                    case .refused(let code): refusal.withLock { $0 = code }
                    }
                }
            } onCancel: {
                link.cut()
            }
        } catch {
            throw .unreachable("nothing accepts a WebSocket at \(endpoint.url) (\(error)): is the server running there?")
        }
        switch refusal.withLock({ $0 }) {
        case "Unauthorized": throw .unauthorized
        case "Forbidden": throw .adminDisabled
        case .some: throw .unknownRoom
        case nil: break
        }
        switch code.flatMap(DisconnectReason.init(closeCode:)) {
        case .roomClosed: return .roomClosed
        case .serverShutdown: return .serverShutdown
        default: return .connectionLost
        }
    }

    /// The room now and after every change, as a sequence that finishes when the room closes
    /// and throws a ``RoomWatchError`` otherwise (``RoomWatchError/serverShutdown`` and
    /// ``RoomWatchError/connectionLost`` among them). A reader slower than the changes gets the
    /// newest state. Ending the iteration ends the watch.
    public func snapshots() -> AsyncThrowingStream<RoomSnapshot, any Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task {
                do {
                    switch try await run({ continuation.yield($0) }) {
                    case .roomClosed: continuation.finish()
                    case .serverShutdown: continuation.finish(throwing: RoomWatchError.serverShutdown)
                    case .connectionLost: continuation.finish(throwing: RoomWatchError.connectionLost)
                    }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// `text` as one URL path segment: RFC 3986's unreserved characters kept, every other byte
    /// of its UTF-8 as `%XX`.
    static func pathSegment(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append(contentsOf: ["%", digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            }
        }
        return result
    }

    /// What the server sends: the room, or the admin API's error object before it closes.
    private enum Incoming: Sendable {
        case snapshot(RoomSnapshot)
        case refused(String)

        init?(_ bytes: [UInt8]) {
            let data = Data(bytes)
            if let snapshot = try? JSONDecoder().decode(RoomSnapshot.self, from: data) {
                self = .snapshot(snapshot)
            } else if let error = try? JSONDecoder().decode([String: String].self, from: data), let code = error["error"] {
                self = .refused(code)
            } else {
                return nil
            }
        }
    }
}

/// How a ``RoomWatch`` ended.
public enum RoomWatchEnd: Sendable, Hashable {
    /// The room closed: its last member left, or the host or an administrator closed it.
    case roomClosed
    /// The server shut down.
    case serverShutdown
    /// The connection dropped without the server saying why.
    case connectionLost
}

/// Why a ``RoomWatch`` could not start or ended early: the admin API's errors, among them
/// ``AdminError/serverShutdown`` and ``AdminError/connectionLost``, which only a watch meets.
public typealias RoomWatchError = AdminError
