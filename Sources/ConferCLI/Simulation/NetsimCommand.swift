public import ArgumentParser
import Dispatch
import Foundation
import ConferMedia
public import ConferNet

extension UDPAddress: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

extension Jitter.Distribution: ExpressibleByArgument {}
extension NetworkTrace.Ending: ExpressibleByArgument {}

struct NetsimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netsim",
        abstract: "Relay UDP through a simulated network: delay, jitter, loss, bursts, reordering, duplication, a bandwidth cap.",
        discussion: """
        Every datagram arriving on --listen goes to --forward after the simulated path; datagrams from the --forward address (RTCP feedback, say) go back to the last sender: untouched, or after --return-delay and --return-loss, or through the same conditions with --both-ways. The same --seed gives the same losses for the same packets. Stops after --duration or on Ctrl-C, then prints what the network did.

        A --trace file has one line per packet: a delay in milliseconds or `loss` (# starts a comment).

        Examples:
          confer netsim --listen 127.0.0.1:6000 --forward 127.0.0.1:5004 \\
              --loss 5 --delay 40 --jitter 10
          confer netsim --listen 0.0.0.0:6000 --forward 10.0.0.2:5004 \\
              --loss 3 --burst 4 --bandwidth 1500 --queue 150
          confer netsim --listen 127.0.0.1:6000 --forward 127.0.0.1:5004 \\
              --trace cellular.txt
        """)

    @Option(help: ArgumentHelp("Address to receive on.", valueName: "HOST:PORT"))
    var listen: UDPAddress
    @Option(help: ArgumentHelp("Address to forward to.", valueName: "HOST:PORT"))
    var forward: UDPAddress
    @OptionGroup var network: NetworkConditionOptions<NetsimCommand>
    @Option(help: "Jitter distribution: uniform, normal or pareto.")
    var jitterDistribution: Jitter.Distribution = .normal
    @Flag(help: "Let jitter reorder packets (by default the path keeps them in order, like a real link).")
    var jitterReorders = false
    @Option(help: ArgumentHelp("Percentage of packets held back (by --reorder-delay) so later ones overtake them.", valueName: "PCT"))
    var reorder: Double = 0
    @Option(help: ArgumentHelp("How long a reordered packet is held back, in milliseconds.", valueName: "MS"))
    var reorderDelay: Double = 20
    @Option(help: ArgumentHelp("Percentage of packets delivered twice.", valueName: "PCT"))
    var duplicate: Double = 0
    @Option(help: ArgumentHelp("Drop-tail queue limit of the bandwidth cap, in milliseconds of data.", valueName: "MS"))
    var queue: Double = 200
    @Option(help: ArgumentHelp("Bytes of overhead per datagram counted against the cap (28 = IPv4 + UDP).", valueName: "BYTES"))
    var overhead = 28
    @Option(help: ArgumentHelp("A per-packet delay/loss trace that replaces --delay, --jitter, --loss and --burst.", valueName: "FILE"))
    var trace: String?
    @Option(help: "After the trace's last line: loop (start again) or model (use the other options).")
    var traceEnd: NetworkTrace.Ending = .loop
    @Flag(help: "Apply the same conditions to the return path (no trace) instead of passing it untouched.")
    var bothWays = false
    @Option(help: ArgumentHelp("One-way delay of the return path in milliseconds (without --both-ways).", valueName: "MS"))
    var returnDelay: Double = 0
    @Option(help: ArgumentHelp("Random loss on the return path in percent (without --both-ways).", valueName: "PCT"))
    var returnLoss: Double = 0
    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C).", valueName: "S"))
    var duration: Double?
    @OptionGroup var output: LiveOutputOptions

    func validate() throws {
        // --loss, --burst, --delay, --jitter and --bandwidth are checked by NetworkConditionOptions.
        for (name, value) in [("--reorder", reorder), ("--duplicate", duplicate), ("--return-loss", returnLoss)]
            where !(0...100).contains(value) {
            throw ValidationError("\(name) is a percentage, 0…100")
        }
        for (name, value) in [("--reorder-delay", reorderDelay), ("--queue", queue), ("--return-delay", returnDelay)]
            where !(0...Double(Self.maximumMilliseconds)).contains(value) {
            throw ValidationError("\(name) is in milliseconds, 0…\(Self.maximumMilliseconds)")
        }
        if !(0...1000).contains(overhead) { throw ValidationError("--overhead is in bytes, 0…1000") }
        if let duration, !(duration > 0 && duration <= 86_400 * 365) { throw ValidationError("--duration must be positive (seconds)") }
        if bothWays && (returnDelay > 0 || returnLoss > 0) {
            throw ValidationError("--both-ways already sets the return path; drop --return-delay and --return-loss")
        }
    }

    /// The return path the options describe.
    var returnConditions: NetworkConditions {
        bothWays ? conditions : NetworkConditions(delay: milliseconds(returnDelay), loss: returnLoss / 100)
    }

    /// The forward path the options describe.
    var conditions: NetworkConditions {
        var conditions = network.conditions(jitter: jitterDistribution)
        conditions.preservesOrder = !jitterReorders
        conditions.reorder = reorder / 100
        conditions.reorderDelay = milliseconds(reorderDelay)
        conditions.duplicate = duplicate / 100
        conditions.queueLimit = .duration(milliseconds(queue))
        conditions.overheadBytes = overhead
        return conditions
    }

    func run() async throws {
        let traceFile = try trace.map { path throws(NetworkTraceError) in try NetworkTrace(contentsOfFile: path, ending: traceEnd) }
        let conditions = self.conditions
        let relay = UDPRelay(UDPRelayConfiguration(
            listen: listen, destination: forward, forward: conditions, backward: returnConditions,
            trace: traceFile, seed: network.seed, duration: duration.map { TimeDelta.seconds($0) }))

        let quiet = output.quiet
        let listen = self.listen, forward = self.forward
        let printer = output.printer()
        let (snapshots, snapshotSink) = AsyncStream.makeStream(of: UDPRelayStatistics.self, bufferingPolicy: .bufferingNewest(1))
        let running = Task {
            defer { snapshotSink.finish() }
            return try await relay.run(onReady: { port in
                printer.print("listening", ["address": "\(listen.host):\(port)", "port": port, "forward": forward.description])
                if !quiet { printError("netsim: relaying \(listen.host):\(port) → \(forward)  (Ctrl-C to stop)") }
            })
        }
        // Ctrl-C ends the relay cleanly so the statistics still print.
        let interrupt = running.cancelledOnInterrupt()
        defer { interrupt.cancel() }

        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                snapshotSink.yield(relay.statistics)
            }
        }
        // The loop ends as soon as the relay does (its task finishes the stream).
        let progress = output.progress("netsim")
        var second = 0
        for await stats in snapshots {
            second += 1
            printer.print("second", ["second": second, "forward": EventPrinter.encoded(stats.forward), "backward": EventPrinter.encoded(stats.backward)])
            progress.update(stats.forward.packetsSent, of: nil,
                            unit: "packets in, \(stats.forward.packetsDelivered) out, \(fixed(stats.forward.lossRate * 100, 1))% lost")
        }
        ticker.cancel()
        progress.finish()
        let stats = try await running.value
        let report = NetsimReport(listen: listen.description, forward: forward.description, seed: network.seed,
                                  conditions: conditions, returnConditions: returnConditions, trace: trace, statistics: stats)
        try output.finish(report, printer: printer)
    }
}

extension NetsimCommand: NetworkConditionCommand {
    typealias BurstLoss = BurstLossOption
    static let lossHelp = "Random loss in percent."
    static let delayHelp = "Mean one-way delay in milliseconds."
    static let defaultDelay = 0.0
    static let jitterHelp = "Delay variation in milliseconds (uniform: ±MS; normal: deviation; pareto: mean excess)."
    /// A minute: also the limit of netsim's other delays and its queue.
    static let maximumMilliseconds = 60_000
    static let bandwidthHelp = "Bandwidth cap in kbit/s (IP+UDP overhead counted)."
    static let bandwidthRange = 1...100_000_000
    static let seedHelp = "Random seed."
}

/// What `confer netsim` prints at the end: the setup and what each direction's network did.
struct NetsimReport: CommandReport {
    var listen: String
    var forward: String
    var seed: UInt64
    var conditions: NetworkConditions
    var returnConditions: NetworkConditions
    var trace: String?
    var statistics: UDPRelayStatistics

    var humanSummary: [String] {
        var lines = ["netsim \(listen) → \(forward) for \(fixed(statistics.elapsed.seconds, 1)) s, seed \(seed)"
                     + (trace.map { ", trace \($0)" } ?? "")]
        var rows = [["direction", "in", "out", "lost", "random", "burst", "queue", "trace", "dup", "reordered", "loss %",
                     "queue ms (mean/max)"]]
        for (name, s) in [("forward", statistics.forward), ("return", statistics.backward)] {
            rows.append([name, "\(s.packetsSent)", "\(s.packetsDelivered)", "\(s.packetsLost)", "\(s.lostRandom)",
                         "\(s.lostBurst)", "\(s.droppedQueue)", "\(s.lostTrace)", "\(s.packetsDuplicated)",
                         "\(s.packetsReordered)", fixed(s.lossRate * 100, 2),
                         fixed(Double(s.meanQueueingDelay.microseconds) / 1000, 1) + " / "
                             + fixed(Double(s.maxQueueingDelay.microseconds) / 1000, 1)])
        }
        lines += table(rows).map { "  " + $0 }
        lines.append("  \(formatBytes(statistics.forward.bytesDelivered)) forwarded, \(formatBytes(statistics.backward.bytesDelivered)) returned")
        let problems = [("no sender yet", statistics.droppedNoPeer), ("over the in-flight cap", statistics.droppedOverflow),
                        ("send errors", statistics.sendErrors)].filter { $0.1 > 0 }
        if !problems.isEmpty {
            lines.append("  dropped by the relay: " + problems.map { "\($0.1) \($0.0)" }.joined(separator: ", "))
        }
        return lines
    }
}
