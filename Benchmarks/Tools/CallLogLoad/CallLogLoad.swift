import ConferServer
import ConferSession
import Foundation
import ToolSupport

/// The call log at scale: fills a fresh SQLite file (WAL, as `confer serve --db` keeps it)
/// with `--calls` calls among `--users` users, then measures writing one more call (an
/// insert, and the updates a call's life makes), and page queries for one user — the first
/// page, a page deep in the log, by role, by end result and with one other user — each
/// through the log's index and, side by side, the same query forced to scan the table
/// (`NOT INDEXED`), and the page with one other user through the caller's index filtered.
///
///     CallLogLoad [--calls 100000] [--users 1000] [--pages 200] [--db FILE]
@main
struct CallLogLoad {
    static func main() throws {
        let arguments = ToolArguments(usage: "CallLogLoad [--calls N] [--users N] [--pages N] [--db FILE]")
        let total = arguments.int("--calls", default: 100_000)
        let users = arguments.int("--users", default: 1000)
        let pages = arguments.int("--pages", default: 200)
        let path = arguments["--db"] ?? NSTemporaryDirectory() + "confer-calllog-\(getpid()).sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        defer { if arguments["--db"] == nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } } }
        let log = try CallLog(path: path)
        var random = SeededGenerator(seed: 42)
        let results = CallEndResult.allCases.filter { $0 != .otherDeviceAccepted }
        let start = SessionTime(milliseconds: 1_700_000_000_000)

        func call(_ index: Int) -> CallRecord {
            let caller = Int(random.next() % UInt64(users)), callee = (caller + 1 + Int(random.next() % UInt64(users - 1))) % users
            var record = CallRecord(id: String(format: "call%08d", index), caller: "user\(caller)", callerDevice: "phone",
                                    callee: "user\(callee)", video: random.next() % 2 == 0,
                                    started: start + .seconds(Int64(index) * 30), customItems: ["n": "\(index)"])
            let result = results[Int(random.next() % UInt64(results.count))]
            if result == .completed || result == .connectionLost || result == .timedOut || result == .acceptFailed {
                record.accepted = record.started + .seconds(5)
                record.acceptedDevice = "laptop"
            }
            if result == .completed || result == .connectionLost { record.connected = record.started + .seconds(6) }
            record.ended = record.started + .seconds(20)
            record.result = result
            record.endedBy = result == .completed ? record.caller : nil
            return record
        }

        // Fill in transactions of 10,000, as a log grows (not one giant transaction).
        let fill = ContinuousClock.now
        var batch: [CallRecord] = []
        for index in 0 ..< total {
            batch.append(call(index))
            if batch.count == 10_000 {
                try log.write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try log.write(batch) }
        let fillSeconds = seconds(ContinuousClock.now - fill)

        // One more call's life at this size: the dial (insert), the answer and the end
        // (replace), each its own transaction as the server writes them.
        var lifeTimes: [Double] = []
        for index in total ..< total + 500 {
            var record = call(index)
            let final = record
            record.result = nil
            record.ended = nil
            record.accepted = nil
            record.connected = nil
            let t0 = ContinuousClock.now
            try log.write(record)
            try log.write(final)
            lifeTimes.append(seconds(ContinuousClock.now - t0) * 1000 / 2)
        }

        // The busiest user's calls, paged.
        let user = "user7"
        func measure(_ query: CallLogQuery, deep: Bool) throws -> (p50: Double, p95: Double, rows: Int) {
            var times: [Double] = []
            var rows = 0
            var cursor: String?
            if deep {
                // A cursor half-way down the user's log.
                var q = query
                q.limit = 100
                for _ in 0 ..< 2 { cursor = try log.page(for: user, q).next; q.cursor = cursor }
            }
            for _ in 0 ..< pages {
                var q = query
                q.cursor = cursor
                let t0 = ContinuousClock.now
                let page = try log.page(for: user, q)
                times.append(seconds(ContinuousClock.now - t0) * 1000)
                rows = page.calls.count
            }
            times.sort()
            return (times[times.count / 2], times[min(times.count - 1, times.count * 95 / 100)], rows)
        }
        // The user's most frequent other side, for the pages with one peer.
        var peers: [String: Int] = [:]
        for record in try log.page(for: user, CallLogQuery(limit: 100)).calls { peers[record.caller == user ? record.callee : record.caller, default: 0] += 1 }
        let peer = peers.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? "user0"
        var rows: [[String: Any]] = []
        let queries: [(String, CallLogQuery, Bool)] = [
            ("first page, both roles", CallLogQuery(limit: 50), false),
            ("page after 200 calls, both roles", CallLogQuery(limit: 50), true),
            ("first page, as caller", CallLogQuery(role: .caller, limit: 50), false),
            ("first page, completed or no answer", CallLogQuery(results: [.completed, .noAnswer], limit: 50), false),
            ("first page with one peer, both roles", CallLogQuery(peer: peer, limit: 50), false),
        ]
        for (name, query, deep) in queries {
            let indexed = try measure(query, deep: deep)
            rows.append(["query": name, "p50Ms": round3(indexed.p50), "p95Ms": round3(indexed.p95), "rows": indexed.rows])
        }
        // Side by side: the first page through the index, and the same SQL scanning the table.
        let scan = try log.scanTimings(for: user, limit: 50, runs: min(pages, 20))
        let plan = try log.plan(for: user, CallLogQuery(limit: 50))
        let pair = try log.peerTimings(for: user, peer: peer, limit: 50, runs: min(pages, 20))
        let pairPlan = try log.plan(for: user, CallLogQuery(peer: peer, limit: 50))
        let mine = try log.page(for: user, CallLogQuery(limit: 100)).calls.count
        lifeTimes.sort()
        let report: [String: Any] = [
            "calls": total, "users": users,
            "fillSeconds": round3(fillSeconds), "fillCallsPerSecond": Int(Double(total) / fillSeconds),
            "writeMsP50": round3(lifeTimes[lifeTimes.count / 2]), "writeMsP95": round3(lifeTimes[lifeTimes.count * 95 / 100]),
            "queries": rows, "indexedFirstPageMs": scan.indexed, "scanFirstPageMs": scan.scanned,
            "plan": plan, "userCallsOnFirstPages": mine,
            "peer": peer, "peerPairIndexMs": pair.pairIndex, "peerCallerIndexMs": pair.roleIndex, "peerPlan": pairPlan,
            "fileBytes": (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0,
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
