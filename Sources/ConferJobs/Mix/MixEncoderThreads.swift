#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many threads a mix gives its encoder when left to choose, and when it takes one away.
///
/// libvpx's VP8 threads wait for each other by spinning (a pause and `sched_yield` per
/// try). On free cores two threads mix 25–45 % faster than one (measured); once anything else
/// wants those cores (other jobs, a build) each spinning thread burns its time slices
/// waiting for a thread that is not running, and the same mix takes ten times as long
/// (measured on the two-core test machine at a load of 8–15: 62 s against 5.6 s for one
/// thread; at a load of 2, with one other task busy, two threads were still 11 % faster).
/// So two threads are used only while other work leaves at least one core free: checked
/// before the encoder is made, and every ``checkInterval`` frames while it encodes; the
/// first time other work is seen twice in a row filling the cores, the encoder drops to one
/// thread for good. A process running under a real-time scheduling policy is not kept
/// waiting by ordinary work, so there two threads are always used.
struct MixEncoderThreads {
    /// Frames between checks for other work while encoding with two threads.
    static let checkInterval = 30
    /// Threads of this process that may be running when a check is made between frames:
    /// the encoding thread itself, libvpx's loop-filter thread finishing the last frame,
    /// and the reading-and-compositing thread.
    static let ownThreadsAtCheck = 3

    /// Counts tasks running machine-wide over some looks (replaced in tests).
    typealias Probe = @Sendable (_ samples: Int) -> Int?

    private let probe: Probe
    private let realTime: Bool
    private let cores: Int
    private var framesSinceCheck = 0
    private var busyChecks = 0

    /// A watch on a machine of `cores` cores that reads the running tasks with `probe`; it
    /// never drops a thread when `realTime` (the process runs under a real-time policy).
    init(probe: @escaping Probe = { runningTasks(samples: $0) }, realTime: Bool = isRealTime(),
         cores: Int = processorCount()) {
        self.probe = probe
        self.realTime = realTime
        self.cores = cores
    }

    /// Threads to start with on a machine of `cores` cores: 2 when it has two or more and
    /// either the tasks `probe` sees running besides this one leave a core free, or the
    /// process runs under a real-time policy; else 1.
    static func initial(probe: Probe = { runningTasks(samples: $0) }, realTime: Bool = isRealTime(),
                        cores: Int = processorCount()) -> Int {
        guard cores >= 2 else { return 1 }
        if realTime { return 2 }
        guard let running = probe(5) else { return 1 }
        // This thread is the only one of ours running now.
        return running - 1 < cores ? 2 : 1
    }

    /// Whether this thread runs under a real-time scheduling policy (FIFO or round-robin),
    /// which ordinary tasks cannot preempt.
    static func isRealTime() -> Bool {
        #if os(Linux)
        let policy = sched_getscheduler(0)
        return policy == SCHED_FIFO || policy == SCHED_RR
        #else
        return false
        #endif
    }

    /// Whether to drop to one thread now: call after every frame encoded with two threads.
    /// Says yes once at most.
    mutating func shouldDropToOneThread() -> Bool {
        guard !realTime, busyChecks < 2 else { return false }
        framesSinceCheck += 1
        guard framesSinceCheck >= Self.checkInterval else { return false }
        framesSinceCheck = 0
        guard let running = probe(1) else { return false }
        busyChecks = running - Self.ownThreadsAtCheck >= cores ? busyChecks + 1 : 0
        return busyChecks >= 2
    }

    /// Online processors.
    static func processorCount() -> Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The fewest tasks running machine-wide over `samples` looks 2 ms apart (the kernel's
    /// `nr_running`, the fourth field of /proc/loadavg), or nil where that is not available.
    static func runningTasks(samples: Int) -> Int? {
        var fewest: Int?
        for i in 0..<samples {
            if i > 0 { usleep(2_000) }
            guard let running = readRunningTasks() else { return nil }
            fewest = min(fewest ?? running, running)
        }
        return fewest
    }

    private static func readRunningTasks() -> Int? {
        #if os(Linux)
        let fd = open("/proc/loadavg", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer -> Int? in
            let n = read(fd, buffer.baseAddress, buffer.count)
            guard n > 0 else { return nil }
            return runningTasks(loadavg: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
        #else
        return nil
        #endif
    }

    /// The running-task count in the text of /proc/loadavg ("0.52 0.58 0.59 3/467 12345"):
    /// the number after the third space; nil when there is none.
    static func runningTasks(loadavg text: UnsafeBufferPointer<UInt8>) -> Int? {
        var spaces = 0
        var value = 0
        var digits = 0
        for byte in text {
            if spaces == 3 {
                guard byte >= 0x30 && byte <= 0x39 else { break }
                value = value * 10 + Int(byte - 0x30)
                digits += 1
            } else if byte == UInt8(ascii: " ") {
                spaces += 1
            }
        }
        return digits > 0 && digits < 10 ? value : nil
    }
}
