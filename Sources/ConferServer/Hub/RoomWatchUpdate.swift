public import ConferSession
import Foundation
import Synchronization

/// One state of a watched room, as ``RoomHub/watch(_:)`` hands it to every watcher: the
/// snapshot, and its JSON made once for all of them by whichever asks first.
public final class RoomWatchUpdate: Sendable {
    /// The room as an administrator sees it.
    public let snapshot: RoomSnapshot
    private let encoded = Mutex<String?>(nil)

    init(_ snapshot: RoomSnapshot) { self.snapshot = snapshot }

    /// The snapshot as the admin API writes it (`GET /v1/rooms/ROOM`'s body: sorted keys).
    public var json: String {
        encoded.withLock { encoded in
            if let encoded { return encoded }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let text = String(decoding: (try? encoder.encode(snapshot)) ?? Data("{}".utf8), as: UTF8.self)
            encoded = text
            return text
        }
    }
}
