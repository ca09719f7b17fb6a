import ConferNet
import Foundation
import Synchronization
import ToolSupport

/// What sending a burst of datagrams costs through ConferNet's UDPSocket: one `send` each (an
/// entry into the channel and a flush per datagram), against one `send(_:to:_:)` for the
/// burst (one entry and one flush; NIO hands the burst to the kernel together). A burst is
/// what one poll of a pipeline leaves: a composite frame's packets and its audio. The
/// receiver, another socket in this process on loopback, counts what arrives.
///
///     UDPSend [--bursts 20000] [--size 1200]
@main
struct UDPSend {
    static func main() async throws {
        let arguments = ToolArguments(usage: "UDPSend [--bursts N] [--size BYTES]")
        let bursts = arguments.int("--bursts", default: 20_000)
        let size = arguments.int("--size", default: 1200)
        var rows: [String] = []
        for burst in [1, 4, 8, 16] {
            for batched in [false, true] {
                let (cpu, wall, received) = try await run(bursts: max(1, bursts / burst), burst: burst, size: size, batched: batched)
                let datagrams = max(1, bursts / burst) * burst
                rows.append("""
                    {"burst": \(burst), "batched": \(batched), "datagrams": \(datagrams), "received": \(received), \
                    "cpuMicrosecondsPerDatagram": \(String(format: "%.2f", cpu / Double(datagrams) * 1e6)), \
                    "wallMicrosecondsPerDatagram": \(String(format: "%.2f", wall / Double(datagrams) * 1e6))}
                    """)
            }
        }
        print("[\n  " + rows.joined(separator: ",\n  ") + "\n]")
    }

    /// Sends `bursts` bursts of `burst` datagrams; the process's CPU seconds and the wall
    /// seconds the sending took, and how many datagrams arrived.
    static func run(bursts: Int, burst: Int, size: Int, batched: Bool) async throws -> (Double, Double, Int) {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { receiver in
            try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { sender in
                let destination = try UDPSocket.resolve(UDPAddress(host: "127.0.0.1", port: receiver.localPort))
                let total = bursts * burst
                let count = Atomic<Int>(0)
                let counting = Task {
                    let pool = UDPBufferPool(capacity: 64)
                    for try await datagram in receiver.datagrams(reusing: pool) {
                        pool.recycle(datagram.bytes)
                        if count.add(1, ordering: .relaxed).newValue == total { break }
                    }
                }
                let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
                defer { payload.deallocate() }
                payload.initializeMemory(as: UInt8.self, repeating: 0x5A)
                let bytes = UnsafeRawBufferPointer(payload)
                let cpuStart = cpuSeconds(), start = ContinuousClock.now
                for index in 0 ..< bursts {
                    if batched {
                        try await sender.send(burst, to: destination) { _ in bytes }
                    } else {
                        for _ in 0 ..< burst { try await sender.send(bytes, to: destination) }
                    }
                    // Kept below what loopback drops: 64 datagrams, then a millisecond's rest.
                    if (index + 1) * burst % 64 < burst { try await Task.sleep(for: .milliseconds(1)) }
                }
                let wall = (ContinuousClock.now - start) / .seconds(1)
                let cpu = cpuSeconds() - cpuStart
                try? await Task.sleep(for: .milliseconds(200))
                counting.cancel()
                return (cpu, wall, count.load(ordering: .relaxed))
            }
        }
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
