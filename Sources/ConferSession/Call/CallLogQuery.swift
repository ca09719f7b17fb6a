/// Which side of a call a user was on.
public enum CallRole: String, Sendable, Codable, CaseIterable, Hashable {
    /// The user dialed.
    case caller
    /// The user was called.
    case callee
}

/// A page request for one user's call log: newest first, filtered by role, end result and
/// the other side.
public struct CallLogQuery: Sendable, Codable, Hashable {
    /// Only calls where the user had this role; nil for both.
    public var role: CallRole?
    /// Only calls with this other user; nil for anyone.
    public var peer: String?
    /// Only calls that ended with one of these; nil or empty for any (ongoing calls included).
    public var results: [CallEndResult]?
    /// Calls per page, 1 to ``maximumLimit``.
    public var limit: Int
    /// Where the previous page stopped (its ``CallLogPage/next``); nil for the newest.
    public var cursor: String?

    /// The largest page.
    public static let maximumLimit = 100

    /// A query for the newest `limit` calls matching `role`, `results` and (when given) `peer`.
    public init(role: CallRole? = nil, results: [CallEndResult]? = nil, peer: String? = nil, limit: Int = 20, cursor: String? = nil) {
        self.role = role
        self.peer = peer
        self.results = results
        self.limit = limit
        self.cursor = cursor
    }

    /// Whether the fields are in range.
    public var isValid: Bool {
        (1 ... Self.maximumLimit).contains(limit) && (results?.count ?? 0) <= CallEndResult.allCases.count
            && (peer.map { !$0.isEmpty && $0.utf8.count <= 256 } ?? true)
            && (cursor.map { CallLogCursor(text: $0) != nil } ?? true)
    }
}

/// One page of a call log.
public struct CallLogPage: Sendable, Codable, Hashable {
    /// The calls, newest first.
    public var calls: [CallRecord]
    /// The cursor of the next (older) page; nil on the last page.
    public var next: String?

    /// A page of `calls`.
    public init(calls: [CallRecord], next: String?) {
        self.calls = calls
        self.next = next
    }
}

/// A position in a newest-first log: the start time and id of the last call of a page
/// (keyset paging, so a page costs the same however deep it is).
public struct CallLogCursor: Sendable, Hashable {
    /// The last call's start.
    public var started: SessionTime
    /// The last call's id (ties at one start time).
    public var id: String

    /// The position after `record`.
    public init(after record: CallRecord) {
        started = record.started
        id = record.id
    }

    /// Reads a cursor's text; nil when it is not one.
    public init?(text: String) {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let milliseconds = Int64(parts[0]), !parts[1].isEmpty, parts[1].utf8.count <= 64 else { return nil }
        started = SessionTime(milliseconds: milliseconds)
        id = String(parts[1])
    }

    /// The cursor's text.
    public var text: String { "\(started.milliseconds):\(id)" }
}
