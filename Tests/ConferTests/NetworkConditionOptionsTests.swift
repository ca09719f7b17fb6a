import Testing
import ArgumentParser
@testable import ConferCLI
import Confer
import ConferMedia
import ConferNet

/// `confer netsim`, `simulate` and `meeting` share their network options: each still
/// accepts, refuses and builds exactly what it did when each declared its own.
@Suite struct NetworkConditionOptionsTests {
    static let relay = ["--listen", "127.0.0.1:6000", "--forward", "127.0.0.1:5004"]

    static func ms(_ value: Double) -> TimeDelta { .seconds(value / 1000) }

    /// The message ArgumentParser prints for `arguments`, or nil when they parse.
    static func refusal<Command: ParsableCommand>(_: Command.Type, _ arguments: [String]) -> String? {
        do {
            _ = try Command.parseAsRoot(arguments)
            return nil
        } catch {
            return Command.message(for: error)
        }
    }

    @Test func netsimBuildsEveryCondition() throws {
        let command = try NetsimCommand.parse(Self.relay + [
            "--loss", "5", "--burst", "4", "--delay", "40", "--jitter", "10", "--jitter-distribution", "pareto",
            "--jitter-reorders", "--reorder", "2", "--reorder-delay", "30", "--duplicate", "1", "--bandwidth", "1500.4",
            "--queue", "150", "--overhead", "40", "--return-delay", "7", "--return-loss", "3", "--seed", "9"])
        #expect(command.conditions == NetworkConditions(
            delay: Self.ms(40), jitter: .pareto(Self.ms(10)), preservesOrder: false, loss: 0,
            burstLoss: GilbertElliott(meanBurstLength: 4, lossRate: 0.05), reorder: 0.02, reorderDelay: Self.ms(30),
            duplicate: 0.01, bandwidth: 1_500_400, queueLimit: .duration(Self.ms(150)), overheadBytes: 40))
        #expect(command.returnConditions == NetworkConditions(delay: Self.ms(7), loss: 0.03))
        #expect(command.network.seed == 9)

        let plain = try NetsimCommand.parse(Self.relay + ["--loss", "5", "--both-ways"])
        #expect(plain.conditions == NetworkConditions(jitter: .normal(.zero), loss: 0.05))
        #expect(plain.returnConditions == plain.conditions)
        #expect(plain.network.seed == 1)
    }

    @Test func simulateBuildsBothPaths() throws {
        let command = try SimulateCommand.parse([
            "clip.y4m", "--loss", "5", "--burst", "3", "--delay", "50", "--jitter", "30", "--bandwidth", "400",
            "--feedback-loss", "2", "--seed", "7", "-o", "received.y4m"])
        let options = command.options
        #expect(options.forward == NetworkConditions(
            delay: Self.ms(50), jitter: .normal(Self.ms(30)), burstLoss: GilbertElliott(meanBurstLength: 3, lossRate: 0.05),
            bandwidth: 400_000))
        #expect(options.backward == NetworkConditions(delay: Self.ms(50), loss: 0.02))
        #expect(options.seed == 7)

        let defaults = try SimulateCommand.parse(["clip.y4m", "-o", "received.y4m"]).options
        #expect(defaults.forward == NetworkConditions(jitter: .normal(.zero)))
        #expect(defaults.backward == NetworkConditions())
        #expect(defaults.seed == 1)
    }

    @Test func meetingBuildsUplinksAndDownlinks() throws {
        let options = try MeetingCommand.parse(["--loss", "3", "--jitter", "20", "--delay", "30", "--bandwidth", "800",
                                                "--seed", "4"]).meetingOptions()
        let uplink = NetworkConditions(delay: Self.ms(30), jitter: .normal(Self.ms(20)), loss: 0.03)
        #expect(options.uplink == uplink)
        var downlink = uplink
        downlink.bandwidth = 800_000
        #expect(options.downlink == downlink)
        #expect(options.seed == 4)

        // A meeting's paths have 25 ms of delay unless told otherwise.
        let defaults = try MeetingCommand.parse([]).meetingOptions()
        #expect(defaults.uplink == NetworkConditions(delay: Self.ms(25), jitter: .normal(.zero)))
        #expect(defaults.downlink == defaults.uplink)
        #expect(defaults.seed == 1)
    }

    /// Each command keeps its own limits, and says so in the same words.
    @Test func eachCommandKeepsItsLimits() {
        let simulate = ["clip.y4m", "-o", "received.y4m"]
        for accepted in [["--delay", "60000"], ["--jitter", "60000"], ["--bandwidth", "1"], ["--bandwidth", "100000000"],
                         ["--loss", "99", "--burst", "10000"], ["--reorder-delay", "60000"]] {
            #expect(Self.refusal(NetsimCommand.self, Self.relay + accepted) == nil, "\(accepted)")
        }
        for accepted in [["--delay", "10000"], ["--bandwidth", "10"], ["--bandwidth", "1000000"], ["--loss", "99", "--burst", "1"]] {
            #expect(Self.refusal(SimulateCommand.self, simulate + accepted) == nil, "\(accepted)")
        }
        for accepted in [["--delay", "10000"], ["--bandwidth", "50"], ["--loss", "100"]] {
            #expect(Self.refusal(MeetingCommand.self, accepted) == nil, "\(accepted)")
        }
        let refused: [(any ParsableCommand.Type, [String], String)] = [
            (NetsimCommand.self, Self.relay + ["--loss", "101"], "--loss is a percentage, 0…100"),
            (NetsimCommand.self, Self.relay + ["--return-loss", "101"], "--return-loss is a percentage, 0…100"),
            (NetsimCommand.self, Self.relay + ["--burst", "0.5", "--loss", "5"], "--burst is a mean burst length in packets, 1…10000"),
            (NetsimCommand.self, Self.relay + ["--burst", "2", "--loss", "100"], "--burst needs --loss below 100"),
            (NetsimCommand.self, Self.relay + ["--delay", "60001"], "--delay is in milliseconds, 0…60000"),
            (NetsimCommand.self, Self.relay + ["--jitter=-1"], "--jitter is in milliseconds, 0…60000"),
            (NetsimCommand.self, Self.relay + ["--queue", "60001"], "--queue is in milliseconds, 0…60000"),
            (NetsimCommand.self, Self.relay + ["--bandwidth", "0.5"], "--bandwidth is in kbit/s, 1…100000000"),
            (NetsimCommand.self, Self.relay + ["--bandwidth", "100000001"], "--bandwidth is in kbit/s, 1…100000000"),
            (SimulateCommand.self, simulate + ["--loss=-1"], "--loss is a percentage, 0…100"),
            (SimulateCommand.self, simulate + ["--feedback-loss", "101"], "--feedback-loss is a percentage, 0…100"),
            (SimulateCommand.self, simulate + ["--burst", "10001", "--loss", "5"], "--burst is a mean burst length in packets, 1…10000"),
            (SimulateCommand.self, simulate + ["--burst", "2", "--loss", "100"], "--burst needs --loss below 100"),
            (SimulateCommand.self, simulate + ["--delay", "10001"], "--delay is in milliseconds, 0…10000"),
            (SimulateCommand.self, simulate + ["--jitter", "10001"], "--jitter is in milliseconds, 0…10000"),
            (SimulateCommand.self, simulate + ["--bandwidth", "9"], "--bandwidth is in kbit/s, 10…1000000"),
            (MeetingCommand.self, ["--loss", "101"], "--loss is a percentage, 0…100"),
            (MeetingCommand.self, ["--delay", "10001"], "--delay is in milliseconds, 0…10000"),
            (MeetingCommand.self, ["--jitter=-0.5"], "--jitter is in milliseconds, 0…10000"),
            (MeetingCommand.self, ["--bandwidth", "49"], "--bandwidth is in kbit/s, 50…1000000"),
            (MeetingCommand.self, ["--bandwidth", "1000001"], "--bandwidth is in kbit/s, 50…1000000"),
            (MeetingCommand.self, ["--burst", "3"], "Unknown option '--burst'. Did you mean '--budget'?"),
            (MeetingCommand.self, ["--reorder", "3"], "Unknown option '--reorder'"),
            (SimulateCommand.self, simulate + ["--duplicate", "3"], "Unknown option '--duplicate'"),
        ]
        for (command, arguments, message) in refused {
            #expect(Self.refusal(command, arguments) == message, "\(command) \(arguments)")
        }
    }
}
