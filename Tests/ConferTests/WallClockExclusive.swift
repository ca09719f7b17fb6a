import Foundation
import Testing

/// Runs a wall-clock test alone among the wall-clock tests of every test target: real-time
/// media over loopback (live senders and receivers, meetings of separate processes) measures
/// what a busy second core would distort. A file lock, polled (a blocking lock would hold one
/// of the two cooperative threads), shared with the other test target's copy of this trait.
struct WallClockExclusive: TestTrait, SuiteTrait, TestScoping {
    static let path = NSTemporaryDirectory() + "confer-wall-clock-tests.lock"
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let descriptor = open(Self.path, O_CREAT | O_RDWR, 0o644)
        defer { if descriptor >= 0 { close(descriptor) } }
        if descriptor >= 0 {
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        defer { if descriptor >= 0 { flock(descriptor, LOCK_UN) } }
        try await function()
    }
}

extension Trait where Self == WallClockExclusive {
    /// Alone among wall-clock tests (see ``WallClockExclusive``).
    static var wallClockExclusive: WallClockExclusive { WallClockExclusive() }
}
