import ConferServer
import ConferSession
import Testing

/// The call log's pages (SQLite in memory, the same SQL as a file): one user's calls with
/// one other, in both directions, newest first, through the index made for it.
@Suite struct CallLogTests {
    /// Calls a minute apart among alice, bob and carol, in a fixed order of pairs.
    static func filled() throws -> (CallLog, [CallRecord]) {
        let log = try CallLog(path: nil)
        let pairs = [("alice", "bob"), ("bob", "alice"), ("alice", "carol"), ("carol", "bob"), ("carol", "alice")]
        var records: [CallRecord] = []
        for index in 0 ..< 30 {
            let (caller, callee) = pairs[index % pairs.count]
            var record = CallRecord(id: "c\(index)", caller: caller, callerDevice: "phone", callee: callee, video: false,
                                    started: SessionTime(milliseconds: 1_000_000 + Int64(index) * 60_000))
            record.ended = record.started + .seconds(10)
            record.result = index % 2 == 0 ? .completed : .noAnswer
            records.append(record)
        }
        try log.write(records)
        return (log, records)
    }

    @Test func aPeerPagesThroughTheCallsBetweenTwoInBothDirections() throws {
        let (log, records) = try Self.filled()
        let expected = records.filter { Set([$0.caller, $0.callee]) == ["alice", "bob"] }.sorted { $0.started > $1.started }.map(\.id)
        var seen: [String] = []
        var query = CallLogQuery(peer: "bob", limit: 4)
        while true {
            let page = try log.page(for: "alice", query)
            seen += page.calls.map(\.id)
            guard let next = page.next else { break }
            query.cursor = next
        }
        #expect(seen == expected && expected.count == 12, "\(seen)")
        // One direction only, and with the other filters.
        let called = try log.page(for: "alice", CallLogQuery(role: .callee, peer: "bob", limit: 100)).calls
        #expect(called.map(\.id) == records.filter { $0.caller == "bob" && $0.callee == "alice" }.sorted { $0.started > $1.started }.map(\.id))
        let answered = try log.page(for: "alice", CallLogQuery(results: [.completed], peer: "bob", limit: 100)).calls
        #expect(!answered.isEmpty && answered.allSatisfy { $0.result == .completed && Set([$0.caller, $0.callee]) == ["alice", "bob"] })
        #expect(try log.page(for: "alice", CallLogQuery(peer: "dave", limit: 100)).calls.isEmpty)
    }

    @Test func aPeerPageIsARangeOfItsIndex() throws {
        let (log, _) = try Self.filled()
        for role in [CallRole.caller, .callee] {
            let plan = try log.plan(for: "alice", CallLogQuery(role: role, peer: "bob")).joined(separator: "; ")
            #expect(plan.contains("USING INDEX call_by_pair (caller=? AND callee=?"), "\(role): \(plan)")
        }
    }

    @Test func aPeerOutOfRangeIsInvalid() {
        #expect(!CallLogQuery(peer: "").isValid)
        #expect(!CallLogQuery(peer: String(repeating: "x", count: 257)).isValid)
        #expect(CallLogQuery(peer: "bob").isValid)
    }
}
