import ArgumentParser
import ConferMedia
import ConferNet

/// The network options `confer netsim`, `simulate` and `meeting` share — `--loss`, `--burst`
/// (where the command has it), `--delay`, `--jitter`, `--bandwidth` and `--seed` — checked
/// and turned into ``NetworkConditions`` here, in one place.
///
/// The options that only `netsim` has (reordering, duplication, the queue, the return path,
/// traces) and `simulate`'s `--feedback-loss` stay with their command.
struct NetworkConditionOptions<Command: NetworkConditionCommand>: ParsableArguments {
    @Option(help: ArgumentHelp(Command.lossHelp, valueName: "PCT"))
    var loss: Double = 0
    @OptionGroup var burstLoss: Command.BurstLoss
    @Option(help: ArgumentHelp(Command.delayHelp, valueName: "MS"))
    var delay: Double = Command.defaultDelay
    @Option(help: ArgumentHelp(Command.jitterHelp, valueName: "MS"))
    var jitter: Double = 0
    @Option(help: ArgumentHelp(Command.bandwidthHelp, valueName: "KBPS"))
    var bandwidth: Double?
    @Option(help: ArgumentHelp(Command.seedHelp, valueName: "N"))
    var seed: UInt64 = 1

    /// The defaults: no loss, the command's delay, no jitter, no cap, seed 1.
    init() {}

    /// The mean burst length in packets, when the loss comes in bursts.
    var burst: Double? { burstLoss.burst }

    func validate() throws {
        if !(0...100).contains(loss) { throw ValidationError("--loss is a percentage, 0…100") }
        if let burst, !(burst >= 1 && burst <= 10_000) { throw ValidationError("--burst is a mean burst length in packets, 1…10000") }
        if burst != nil && loss >= 100 { throw ValidationError("--burst needs --loss below 100") }
        for (name, value) in [("--delay", delay), ("--jitter", jitter)] where !(0...Double(Command.maximumMilliseconds)).contains(value) {
            throw ValidationError("\(name) is in milliseconds, 0…\(Command.maximumMilliseconds)")
        }
        let range = Command.bandwidthRange
        if let bandwidth, !(Double(range.lowerBound)...Double(range.upperBound)).contains(bandwidth) {
            throw ValidationError("--bandwidth is in kbit/s, \(range.lowerBound)…\(range.upperBound)")
        }
    }

    /// The one-way delay.
    var delayTime: TimeDelta { milliseconds(delay) }

    /// The path the options describe, its jitter drawn from `distribution`; every property
    /// these options do not set keeps ``NetworkConditions``' default.
    func conditions(jitter distribution: Jitter.Distribution = .normal) -> NetworkConditions {
        NetworkConditions(
            delay: delayTime, jitter: Jitter(distribution, milliseconds(jitter)),
            // Bursty loss replaces the independent loss: --loss is then the bursts' overall rate.
            loss: burst == nil ? loss / 100 : 0,
            burstLoss: burst.map { GilbertElliott(meanBurstLength: $0, lossRate: loss / 100) },
            bandwidth: bandwidth.map { Int(($0 * 1000).rounded()) })
    }
}

/// A command that takes ``NetworkConditionOptions``: how it describes them and what it allows.
///
/// Why a protocol: the commands describe the same options differently (netsim's delay is one
/// relay's, a meeting's is every participant's) and allow different ranges, and
/// ArgumentParser makes an option group with `init()`, so the group can learn them only
/// from a type.
protocol NetworkConditionCommand {
    /// ``BurstLossOption`` where the command offers `--burst`, else ``NoBurstLossOption``.
    associatedtype BurstLoss: BurstLossArguments
    /// Help for `--loss`.
    static var lossHelp: String { get }
    /// Help for `--delay`.
    static var delayHelp: String { get }
    /// `--delay` when not given, in milliseconds.
    static var defaultDelay: Double { get }
    /// Help for `--jitter`.
    static var jitterHelp: String { get }
    /// The largest `--delay` and `--jitter` allowed, in milliseconds.
    static var maximumMilliseconds: Int { get }
    /// Help for `--bandwidth`.
    static var bandwidthHelp: String { get }
    /// The `--bandwidth` caps allowed, in kbit/s.
    static var bandwidthRange: ClosedRange<Int> { get }
    /// Help for `--seed`.
    static var seedHelp: String { get }
}

/// Where the loss may come in bursts: `--burst`, or nothing.
protocol BurstLossArguments: ParsableArguments {
    /// The mean burst length in packets; nil for independent loss.
    var burst: Double? { get }
}

/// `--burst`: Gilbert–Elliott bursts, their overall rate `--loss` (checked with it in
/// ``NetworkConditionOptions``).
struct BurstLossOption: BurstLossArguments {
    @Option(help: ArgumentHelp("Make the loss bursty: mean burst length in packets (Gilbert–Elliott), with --loss as the overall rate.", valueName: "LEN"))
    var burst: Double?

    /// No bursts.
    init() {}
}

/// No `--burst`: the command's loss is always independent.
struct NoBurstLossOption: BurstLossArguments {
    /// Always nil.
    var burst: Double? { nil }

    /// The only value.
    init() {}
}

/// `ms` milliseconds, to the microsecond.
func milliseconds(_ ms: Double) -> TimeDelta { .seconds(ms / 1000) }
