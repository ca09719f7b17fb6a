import Dispatch
import Foundation
import Testing
@testable import ConferCLI

/// `--events` output stays one JSON object per line when several threads print at once.
@Suite struct EventPrinterTests {
    /// Lines far longer than a pipe keeps whole (`PIPE_BUF`, 4 KiB), from four threads, with a
    /// reader draining the pipe as a consumer would: every line comes out whole.
    @Test func linesFromManyThreadsDoNotInterleave() throws {
        let pipe = Pipe()
        let printer = EventPrinter(json: true, quiet: true, destination: pipe.fileHandleForWriting)
        let read = ReadAll(pipe.fileHandleForReading)

        let threads = 4, linesEach = 25
        let filler = String(repeating: "x", count: 100_000)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for n in 0..<linesEach { printer.print("second", ["thread": thread, "n": n, "filler": filler]) }
        }
        try pipe.fileHandleForWriting.close()

        let lines = read.wait().split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == threads * linesEach)
        var seen: [Int: [Int]] = [:]
        for line in lines {
            let parsed = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
            let object = try #require(parsed, "a line is not one whole object")
            #expect(object["event"] as? String == "second" && (object["filler"] as? String)?.count == filler.count)
            seen[object["thread"] as? Int ?? -1, default: []].append(object["n"] as? Int ?? -1)
        }
        #expect(seen == Dictionary(uniqueKeysWithValues: (0..<threads).map { ($0, Array(0..<linesEach)) }),
                "each thread's lines arrive whole and in its order")
    }
}

/// Reads a file handle to its end on a thread of its own, as a process reading our stdout would.
private final class ReadAll: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// All that was read, once the writing end is closed.
    func wait() -> Data {
        done.wait()
        return data
    }
}
