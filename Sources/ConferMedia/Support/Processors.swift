#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many cores this machine has, and how many are free for a job to use by default.
public enum Processors {
    /// Cores online.
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Other processes' threads running or ready to run now, when the system says (Linux:
    /// the fourth field of /proc/loadavg, less the thread that reads it). An instant count,
    /// where the load average would still remember a build that ended a minute ago.
    public static var othersRunnable: Int? {
        guard let file = fopen("/proc/loadavg", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: " ")
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: "/"), let running = Int(fields[3][..<slash]) else { return nil }
        return max(0, running - 1)
    }

    /// Cores free for a job now: those online less the ones other runnable threads hold, at
    /// least one and at most `limit`.
    public static func free(online: Int = Processors.online, othersRunnable: Int? = Processors.othersRunnable, limit: Int = 16) -> Int {
        min(limit, max(1, online - max(0, othersRunnable ?? 0)))
    }
}
