import Foundation
public import Testing

/// Runs a wall-clock test alone among the wall-clock tests of every test target: real-time
/// media over loopback (live senders and receivers, meetings of separate processes) measures
/// what a busy second core would distort. A file lock, polled (a blocking lock would hold one
/// of the two cooperative threads), so it holds across the test targets that use it.
/// `Scripts/test` also keeps the virtual-time tests, which hold both cores, out of their way.
public struct WallClockExclusive: TestTrait, SuiteTrait, TestScoping {
    /// The lock file every test target's wall-clock tests share.
    public static let path = NSTemporaryDirectory() + "confer-wall-clock-tests.lock"
    /// Every test of a suite so marked is alone.
    public var isRecursive: Bool { true }

    /// Runs `function` once no other wall-clock test holds the lock.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // `Scripts/test` runs the virtual-time tests first and these alone afterwards; one
        // that its list of wall-clock suites misses would run beside them, under load.
        if ProcessInfo.processInfo.environment["CONFER_TEST_PHASE"] == "virtual-time" {
            Issue.record("\(test.name) runs against the wall clock: add its suite to WALL_CLOCK in Scripts/test")
        }
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
    public static var wallClockExclusive: WallClockExclusive { WallClockExclusive() }
}
