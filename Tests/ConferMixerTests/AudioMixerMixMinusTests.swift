import ConferMedia
import Testing
@testable import ConferMixer

@Suite struct AudioMixerMixMinusTests {
    /// 100 ms windows hold whole cycles of every ToneSource frequency (300 + 120·k Hz), so
    /// the Goertzel bins of different participants do not leak into each other.
    static let window = 4_800

    @Test func everyListenerHearsEveryoneButThemselves() throws {
        var room = MixerRoom()
        for k in 0..<4 { try room.add(k, tone: ToneSource(index: k, amplitude: 0.2, pattern: .continuous)) }
        let heard = try room.record(steps: 30, listeners: Array(0..<4) + [99])
        let tone = 0.2 * 0.2 / 2
        for listener in 0..<4 {
            let tail = Array(heard[listener]!.suffix(Self.window * 2))
            for k in 0..<4 {
                let p = power(tail, ToneSource.frequency(forIndex: k))
                if k == listener {
                    #expect(decibels(p, over: tone) < -40, "listener \(listener) hears itself at \(p)")
                } else {
                    #expect(abs(p / tone - 1) < 0.02, "listener \(listener) hears \(k) at \(p)")
                }
            }
        }
        // Everyone is talking: four own mixes, nobody on the shared one.
        #expect(room.mixer.ownMixListeners == [0, 1, 2, 3])
        #expect(room.mixer.sharedMixListeners.isEmpty)
        // The shared mix (what a non-participant such as a recorder hears) has all four.
        let shared = Array(room.mixer.sharedMix.samples)
        #expect(heard[99]!.suffix(480) == shared[...])
        let sharedTail = Array(heard[99]!.suffix(Self.window * 2))
        for k in 0..<4 {
            #expect(abs(power(sharedTail, ToneSource.frequency(forIndex: k)) / tone - 1) < 0.02)
        }
    }

    @Test func ownMixIsExactlyTheSumOfTheOthers() throws {
        var room = MixerRoom()
        for k in 0..<3 { try room.add(k, tone: ToneSource(index: k, amplitude: 0.25, pattern: .continuous, seed: 1)) }
        var solo = (0..<3).map { ToneSource(index: $0, amplitude: 0.25, pattern: .continuous, seed: 1) }
        for _ in 0..<5 {
            try room.advance()
            let inputs = (0..<3).map { solo[$0].next(frameCount: 480).samples }
            for listener in 0..<3 {
                let expected = (0..<480).map { i in
                    Int16((0..<3).filter { $0 != listener }.reduce(Int32(0)) { $0 + Int32(inputs[$1][i]) })
                }
                #expect(room.mixer.mix(for: listener).samples == expected)
            }
            #expect(room.mixer.sharedMix.samples == (0..<480).map { i in Int16(inputs.reduce(Int32(0)) { $0 + Int32($1[i]) }) })
        }
    }

    @Test func silentListenersShareOneMixAndOnlyTalkersGetTheirOwn() throws {
        var room = MixerRoom()
        try room.add(0, tone: ToneSource(index: 0, amplitude: 0.3, pattern: .continuous))
        try room.add(1, tone: ToneSource(index: 1, amplitude: 0.3, pattern: .continuous))
        for k in 2..<6 { try room.add(k, feed: filler { _ in 0 }) }
        // Room noise far below the gate: it never opens, and it is not in anybody's mix.
        try room.add(6, feed: filler { n in n % 2 == 0 ? 3 : -3 })
        var result = try room.advance()
        for _ in 0..<9 { result = try room.advance() }
        #expect(result.ownMixListeners == [0, 1])
        #expect(room.mixer.sharedMixListeners == [2, 3, 4, 5, 6])
        #expect(result.participants.map(\.contributes) == [true, true, false, false, false, false, false])
        for k in 2...6 {
            #expect(!room.mixer.needsOwnMix(k))
            #expect(room.mixer.mix(for: k) == room.mixer.sharedMix)
        }
        #expect(room.mixer.needsOwnMix(0) && room.mixer.needsOwnMix(1))
        // The two talkers hear each other only; the room noise was gated out of the sum.
        let zero = room.mixer.mix(for: 0).samples, one = room.mixer.mix(for: 1).samples
        #expect(room.mixer.sharedMix.samples == zip(zero, one).map { $0 + $1 })
        #expect(room.mixer.statistics.ownMixesRendered == 20)
        // Lending the samples gives the same audio without a copy.
        let lent = room.mixer.withMix(for: 0) { Array($0) }
        #expect(lent == zero)
    }
}
