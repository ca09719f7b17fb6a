#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ConferSession
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the call log cannot be opened, written or read.
public struct CallLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The database's directory does not exist.
        case missingDirectory
        /// Another process holds the database locked.
        case locked
        /// The file cannot be opened or is not a database.
        case cannotOpen
        /// A write failed.
        case writeFailed
        /// A query failed.
        case readFailed
    }

    /// What went wrong.
    public var kind: Kind
    /// The file and SQLite's words.
    public var detail: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}

/// Every call of a server, in SQLite through GRDB: a write-ahead log (a SIGKILL loses no
/// committed call), a versioned schema applied by migrations, and keyset paging through
/// one index per role so that a page costs the same at any depth.
public final class CallLog: Sendable {
    private let database: any DatabaseWriter
    /// Where the log is, or nil for one in memory.
    public let path: String?

    /// Opens (creating if needed) the log at `path`, or one in memory. Calls a previous run
    /// left unfinished (killed mid-call) are closed as ``CallEndResult/connectionLost`` at
    /// their last known step.
    public init(path: String?) throws(CallLogError) {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        // WAL with NORMAL sync: a commit is in the log file before write returns, so a killed
        // process loses nothing; only a power cut could lose the last commits.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        if let path, let slash = path.lastIndex(of: "/") {
            let directory = slash == path.startIndex ? "/" : String(path[..<slash])
            var status = stat()
            guard stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw CallLogError(.missingDirectory, "the call log's directory \(directory) does not exist; create it or pass another --db")
            }
        }
        do {
            if let path {
                database = try DatabasePool(path: path, configuration: configuration)
            } else {
                database = try DatabaseQueue(configuration: configuration)
            }
            try Self.migrator.migrate(database)
            try database.write { db in
                try db.execute(sql: """
                    UPDATE call SET result = ?, ended = COALESCE(connected, accepted, started),
                        durationMs = 0
                    WHERE result IS NULL
                    """, arguments: [CallEndResult.connectionLost.rawValue])
            }
        } catch let error as DatabaseError {
            let file = path ?? "memory"
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw CallLogError(.locked, "the call log \(file) is locked by another process (another server on the same --db?)")
            default:
                throw CallLogError(.cannotOpen, "cannot open the call log \(file): \(error.message ?? "\(error.resultCode)")")
            }
        } catch {
            throw CallLogError(.cannotOpen, "cannot open the call log \(path ?? "memory"): \(error)")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: calls") { db in
            try db.execute(sql: """
                CREATE TABLE call (
                    id TEXT PRIMARY KEY NOT NULL,
                    caller TEXT NOT NULL,
                    callee TEXT NOT NULL,
                    callerDevice TEXT NOT NULL,
                    acceptedDevice TEXT,
                    video INTEGER NOT NULL,
                    started INTEGER NOT NULL,
                    accepted INTEGER,
                    connected INTEGER,
                    ended INTEGER,
                    durationMs INTEGER NOT NULL DEFAULT 0,
                    result TEXT,
                    endedBy TEXT,
                    failure TEXT,
                    customItems TEXT NOT NULL DEFAULT '{}'
                );
                -- One index per role, in page order: a page is a range scan of one of them.
                CREATE INDEX call_by_caller ON call(caller, started DESC, id DESC);
                CREATE INDEX call_by_callee ON call(callee, started DESC, id DESC);
                """)
        }
        migrator.registerMigration("v2: calls between two users") { db in
            // A page of one user's calls with one other is a range read of this index in both
            // directions: (caller = me, callee = them) and (caller = them, callee = me).
            try db.execute(sql: "CREATE INDEX call_by_pair ON call(caller, callee, started DESC, id DESC)")
        }
        return migrator
    }

    /// Inserts the call or replaces what was written of it.
    public func write(_ record: CallRecord) throws(CallLogError) {
        try write([record])
    }

    /// Writes several calls in one transaction.
    public func write(_ records: [CallRecord]) throws(CallLogError) {
        do {
            try database.write { db in
                for record in records {
                    try db.execute(sql: """
                        INSERT OR REPLACE INTO call (id, caller, callee, callerDevice, acceptedDevice, video, started, accepted,
                            connected, ended, durationMs, result, endedBy, failure, customItems)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: Self.arguments(record))
                }
            }
        } catch {
            throw CallLogError(.writeFailed, "cannot write to the call log \(path ?? "memory"): \(error)")
        }
    }

    /// One page of `identity`'s calls, newest first.
    public func page(for identity: String, _ query: CallLogQuery) throws(CallLogError) -> CallLogPage {
        let limit = min(max(query.limit, 1), CallLogQuery.maximumLimit)
        let cursor = query.cursor.flatMap(CallLogCursor.init(text:))
        let results = (query.results ?? []).map(\.rawValue)
        let roles: [CallRole] = query.role.map { [$0] } ?? [.caller, .callee]
        var parts: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        for role in roles {
            var sql: String
            if let peer = query.peer {
                let (caller, callee) = role == .caller ? (identity, peer) : (peer, identity)
                sql = "SELECT * FROM call INDEXED BY call_by_pair WHERE caller = ? AND callee = ?"
                arguments += [caller, callee]
            } else {
                sql = "SELECT * FROM call INDEXED BY call_by_\(role.rawValue) WHERE \(role.rawValue) = ?"
                arguments.append(identity)
            }
            if let cursor {
                sql += " AND (started, id) < (?, ?)"
                arguments += [cursor.started.milliseconds, cursor.id]
            }
            if !results.isEmpty {
                sql += " AND result IN (\(results.map { _ in "?" }.joined(separator: ", ")))"
                arguments += results.map { $0 }
            }
            sql += " ORDER BY started DESC, id DESC LIMIT \(limit + 1)"
            parts.append("SELECT * FROM (\(sql))")
        }
        let sql = parts.joined(separator: " UNION ALL ") + " ORDER BY started DESC, id DESC LIMIT \(limit + 1)"
        let statementArguments = StatementArguments(arguments)
        do {
            let rows = try database.read { db in try Row.fetchAll(db, sql: sql, arguments: statementArguments) }
            var calls = rows.prefix(limit).map(Self.record)
            let next = rows.count > limit ? calls.last.map { CallLogCursor(after: $0).text } : nil
            calls = Array(calls)
            return CallLogPage(calls: calls, next: next)
        } catch {
            throw CallLogError(.readFailed, "cannot read the call log \(path ?? "memory"): \(error)")
        }
    }

    /// Every identity that ever called or was called.
    public func users() throws(CallLogError) -> [String] {
        do {
            return try database.read { db in try String.fetchAll(db, sql: "SELECT caller FROM call UNION SELECT callee FROM call") }
        } catch {
            throw CallLogError(.readFailed, "cannot read the call log \(path ?? "memory"): \(error)")
        }
    }

    /// Every call, oldest first (for tools and tests; a server pages).
    public func all() throws(CallLogError) -> [CallRecord] {
        do {
            return try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM call ORDER BY started, id") }.map(Self.record)
        } catch {
            throw CallLogError(.readFailed, "cannot read the call log \(path ?? "memory"): \(error)")
        }
    }

    /// Median milliseconds of the first page of `identity`'s calls as caller, through the
    /// index and with the table scanned (`NOT INDEXED`), for benchmarks.
    public func scanTimings(for identity: String, limit: Int, runs: Int) throws -> (indexed: Double, scanned: Double) {
        func median(_ sql: String) throws -> Double {
            var times: [Double] = []
            for _ in 0 ..< max(1, runs) {
                let start = ContinuousClock.now
                _ = try database.read { db in try Row.fetchAll(db, sql: sql, arguments: [identity]) }
                let elapsed = ContinuousClock.now - start
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            return times.sorted()[times.count / 2]
        }
        let order = "ORDER BY started DESC, id DESC LIMIT \(limit)"
        return (try median("SELECT * FROM call INDEXED BY call_by_caller WHERE caller = ? \(order)"),
                try median("SELECT * FROM call NOT INDEXED WHERE caller = ? \(order)"))
    }

    /// Median milliseconds of the first page of `identity`'s calls with `peer` as caller,
    /// through the pair index and through the caller index with the callee filtered, for
    /// benchmarks.
    public func peerTimings(for identity: String, peer: String, limit: Int, runs: Int) throws -> (pairIndex: Double, roleIndex: Double) {
        func median(_ index: String) throws -> Double {
            var times: [Double] = []
            let sql = "SELECT * FROM call INDEXED BY \(index) WHERE caller = ? AND callee = ? ORDER BY started DESC, id DESC LIMIT \(limit)"
            for _ in 0 ..< max(1, runs) {
                let start = ContinuousClock.now
                _ = try database.read { db in try Row.fetchAll(db, sql: sql, arguments: [identity, peer]) }
                let elapsed = ContinuousClock.now - start
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            return times.sorted()[times.count / 2]
        }
        return (try median("call_by_pair"), try median("call_by_caller"))
    }

    /// How SQLite plans a page query for `query` (to show the index is used).
    public func plan(for identity: String, _ query: CallLogQuery) throws -> [String] {
        let role = query.role ?? .caller
        let page = "(started, id) < (?, ?) ORDER BY started DESC, id DESC LIMIT 51"
        let (sql, arguments): (String, StatementArguments)
        if let peer = query.peer {
            sql = "EXPLAIN QUERY PLAN SELECT * FROM call WHERE caller = ? AND callee = ? AND \(page)"
            arguments = role == .caller ? [identity, peer, Int64.max, "~"] : [peer, identity, Int64.max, "~"]
        } else {
            sql = "EXPLAIN QUERY PLAN SELECT * FROM call WHERE \(role.rawValue) = ? AND \(page)"
            arguments = [identity, Int64.max, "~"]
        }
        return try database.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { $0["detail"] as String? ?? "" }
        }
    }

    private static func arguments(_ record: CallRecord) -> StatementArguments {
        let items = (try? JSONEncoder().encode(record.customItems)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let values: [(any DatabaseValueConvertible)?] = [
            record.id, record.caller, record.callee, record.callerDevice, record.acceptedDevice, record.video,
            record.started.milliseconds, record.accepted?.milliseconds, record.connected?.milliseconds, record.ended?.milliseconds,
            record.duration.sessionMillisecondsValue, record.result?.rawValue, record.endedBy, record.failure?.rawValue, items,
        ]
        return StatementArguments(values)
    }

    private static func record(_ row: Row) -> CallRecord {
        let id: String = row["id"] ?? ""
        var record = CallRecord(id: id, caller: row["caller"] ?? "", callerDevice: row["callerDevice"] ?? "", callee: row["callee"] ?? "",
                                video: row["video"] ?? false, started: SessionTime(milliseconds: row["started"] ?? 0))
        record.acceptedDevice = row["acceptedDevice"]
        record.accepted = (row["accepted"] as Int64?).map(SessionTime.init(milliseconds:))
        record.connected = (row["connected"] as Int64?).map(SessionTime.init(milliseconds:))
        record.ended = (row["ended"] as Int64?).map(SessionTime.init(milliseconds:))
        record.result = (row["result"] as String?).flatMap(CallEndResult.init(rawValue:))
        record.endedBy = row["endedBy"]
        record.failure = (row["failure"] as String?).flatMap(SessionRefusal.init(rawValue:))
        let items: String = row["customItems"] ?? "{}"
        record.customItems = (try? JSONDecoder().decode([String: String].self, from: Data(items.utf8))) ?? [:]
        return record
    }
}

extension Duration {
    fileprivate var sessionMillisecondsValue: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
