import Testing
import ConferMedia
@testable import ConferNet

@Suite struct NetworkTraceTests {
    static let text = """
        # delay per packet, ms
        10
        loss

          20.5\t# trailing comment
        5
        LOSS
        0.001
        """

    @Test func parsesDelaysLossesCommentsAndBlanks() throws {
        let trace = try NetworkTrace(parsing: Self.text)
        #expect(trace.entries == [.delay(.milliseconds(10)), .loss, .delay(TimeDelta(microseconds: 20_500)), .delay(.milliseconds(5)),
                                  .loss, .delay(TimeDelta(microseconds: 1))])
        #expect(try NetworkTrace(parsing: "1.23456\r\n.5\r\n7.").entries
                == [.delay(TimeDelta(microseconds: 1234)), .delay(TimeDelta(microseconds: 500)), .delay(.milliseconds(7))])
    }

    @Test func traceDrivesExactDelaysAndLossesAndLoops() throws {
        let trace = try NetworkTrace(parsing: Self.text)
        // Ordering is off so the trace's own delays come through unchanged.
        var (link, results) = sendPackets(NetworkConditions(delay: .seconds(1), preservesOrder: false, loss: 0.5),
                                          count: 12, interval: .milliseconds(10), trace: trace)
        let pattern: [Int64?] = [10_000, nil, 20_500, 5_000, nil, 1]
        for (i, result) in results.enumerated() {
            let expected = pattern[i % 6].map { Timestamp(microseconds: Int64(i) * 10_000 + $0) }
            #expect(result.deliveryTime == expected, "packet \(i)")
            #expect(result.lossCause == (expected == nil ? .trace : nil))
        }
        let latencies = drain(&link).map { $0.latency.microseconds }
        #expect(latencies.sorted() == [1, 1, 5_000, 5_000, 10_000, 10_000, 20_500, 20_500])
        #expect(link.statistics.lostTrace == 4 && link.statistics.packetsLost == 4)
        // Packet 2 (sent at 20 ms, due 40.5 ms) arrives after packet 3 (sent at 30 ms, due 35 ms).
        #expect(link.statistics.packetsReordered == 2)
    }

    @Test func traceHandsOverToTheModelAtItsEnd() throws {
        let trace = try NetworkTrace(parsing: "3\nloss", ending: .model)
        let (_, results) = sendPackets(NetworkConditions(delay: .milliseconds(50)), count: 4, interval: .milliseconds(10),
                                       trace: trace)
        #expect(results.map(\.deliveryTime) == [.milliseconds(3), nil, .milliseconds(70), .milliseconds(80)])
    }

    @Test func fifoRuleStillAppliesToTraces() throws {
        let trace = try NetworkTrace(parsing: "30\n5")
        let (_, results) = sendPackets(.perfect, count: 2, interval: .milliseconds(10), trace: trace)
        #expect(results.map(\.deliveryTime) == [.milliseconds(30), .milliseconds(30)])
    }

    static let badTraces: [(String, NetworkTraceError.Kind, Int?)] = [
        ("10\nabc\n", .invalidEntry, 2),
        ("1\n2\n-5", .delayOutOfRange, 3),
        ("60001", .delayOutOfRange, 1),
        ("99999999999999999999", .delayOutOfRange, 1),
        ("# header\n\n1.2.3", .invalidEntry, 3),
        ("12 ms", .invalidEntry, 1),
        ("lost", .invalidEntry, 1),
        ("4\n.\n", .invalidEntry, 2),
        ("1e3", .invalidEntry, 1),
        ("nan", .invalidEntry, 1),
        ("5\n+5", .invalidEntry, 2),
        ("", .empty, nil),
        ("# nothing\n\n   \n", .empty, nil),
    ]

    @Test(arguments: badTraces)
    func badLinesAreTypedErrorsWithLineNumbers(text: String, kind: NetworkTraceError.Kind, line: Int?) {
        #expect {
            try NetworkTrace(parsing: text)
        } throws: { error in
            guard let error = error as? NetworkTraceError else { return false }
            return error.kind == kind && error.line == line && !error.description.isEmpty
        }
    }

    @Test func nonTextBytesAreAnErrorNamingTheLine() {
        #expect(throws: NetworkTraceError.self) { try NetworkTrace(bytes: [0x31, 0x0A, 0xFF, 0x00, 0x32]) }
        do {
            _ = try NetworkTrace(bytes: [0x31, 0x0A, 0xFF, 0x00, 0x32])
        } catch {
            #expect(error.line == 2 && error.kind == .invalidEntry)
            #expect(error.detail.contains("\\xFF\\x00"))
        }
    }

    @Test func missingFileIsAnIOError() {
        do {
            _ = try NetworkTrace(contentsOfFile: "/nonexistent/confer-trace.txt")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .io && error.line == nil)
        }
    }
}
