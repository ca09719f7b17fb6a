import ConferMedia
import Testing
@testable import ConferRTP

@Suite struct PayloadFormatTests {
    struct Stop: Error, Equatable { var after: Int }

    /// Emits until the `limit`-th payload, then throws; returns how many were seen and what was thrown.
    func stopAfter<P: Payloader>(_ limit: Int, _ payloader: inout P, _ frame: EncodedFrame) -> (seen: Int, thrown: Stop?) {
        var seen = 0
        do {
            try payloader.payload(frame, maxPayloadSize: 100) { (_, _) throws(Stop) in
                seen += 1
                if seen == limit { throw Stop(after: seen) }
            }
        } catch {
            guard case .emit(let stop) = error else { return (seen, nil) }
            return (seen, stop)
        }
        return (seen, nil)
    }

    @Test func emitErrorsPassThroughEveryPayloader() {
        let data = randomBytes(1000, seed: 1)
        var vp8 = VP8Payloader()
        #expect(stopAfter(2, &vp8, EncodedFrame(codec: .vp8, data: data)) == (2, Stop(after: 2)))
        var vp9 = VP9Payloader()
        #expect(stopAfter(3, &vp9, EncodedFrame(codec: .vp9, data: data, isKeyframe: true)) == (3, Stop(after: 3)))
        var h264 = H264Payloader()
        var nal = data
        nal[0] = 0x65
        #expect(stopAfter(4, &h264, EncodedFrame(codec: .h264, data: nal)) == (4, Stop(after: 4)))
        var opus = OpusPayloader()
        #expect(stopAfter(1, &opus, EncodedFrame(codec: .opus, data: Array(data.prefix(50)))) == (1, Stop(after: 1)))
    }

    @Test func payloadErrorsComeBeforeAnyPayload() {
        var payloader = VP8Payloader()
        var seen = 0
        do {
            // One descriptor byte leaves no room for the bitstream.
            try payloader.payload(EncodedFrame(codec: .vp8, data: [1, 2, 3]), maxPayloadSize: 1) { _, _ in seen += 1 }
            Issue.record("expected an error")
        } catch {
            #expect(error.payloadError.reason == .doesNotFit)
            #expect(error.payloadError.description == "vp8 payload: maxPayloadSize below descriptor + 1 doesNotFit at byte 0")
        }
        #expect(seen == 0)
    }

    @Test(arguments: [(1, 10, 10), (10, 10, 10), (11, 10, 10), (1000, 90, 98), (1000, 1, 98), (40, 2, 10), (101, 100, 1)])
    func splitIsFewestPacketsAndBalanced(total: Int, firstCapacity: Int, restCapacity: Int) throws {
        let split = try #require(PayloadSplit(total: total, firstCapacity: firstCapacity, restCapacity: restCapacity))
        let sizes = (0..<split.count).map { split.size(ofPacket: $0) }
        #expect(sizes.reduce(0, +) == total)
        #expect(sizes.allSatisfy { $0 >= 1 })
        #expect(sizes[0] <= firstCapacity && sizes.dropFirst().allSatisfy { $0 <= restCapacity })
        let fewest = total <= firstCapacity ? 1 : 1 + (total - firstCapacity + restCapacity - 1) / restCapacity
        #expect(split.count == fewest)
        // Later packets differ by at most one byte; whole packets (the first one's handicap
        // added back) too, unless the first packet's room is so small it just gets one byte.
        let rest = sizes.dropFirst()
        if let most = rest.max(), let least = rest.min() { #expect(most - least <= 1) }
        var whole = sizes
        whole[0] += restCapacity - firstCapacity
        if split.count > 1 && sizes[0] > 1 { #expect(whole.max()! - whole.min()! <= 1, "\(sizes)") }
    }

    @Test func splitRefusesImpossibleLimits() {
        #expect(PayloadSplit(total: 10, firstCapacity: 0, restCapacity: 10) == nil)
        #expect(PayloadSplit(total: 10, firstCapacity: 5, restCapacity: 0) == nil)
        #expect(PayloadSplit(total: 0, firstCapacity: 5, restCapacity: 5) == nil)
        #expect(PayloadSplit(total: 5, firstCapacity: 5, restCapacity: 0)?.count == 1)
    }
}
