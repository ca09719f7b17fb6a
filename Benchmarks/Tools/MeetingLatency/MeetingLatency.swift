import ConferLive
import ConferMedia
import ConferMixer
import ConferNet
import ConferSRTP
import Foundation
import Synchronization
import ToolSupport

/// Glass to glass in a live meeting on loopback: a host (LiveMeetingHost) and N participants
/// (LiveMeetingParticipant), each on its own UDP socket with SRTP, in this process on the wall
/// clock. Participant 1's camera draws its frame index as a counter; participant 2 reads
/// that counter in participant 1's tile of every composite it renders. The latency of a
/// frame is from participant 1's capture to the first composite at participant 2 that shows
/// it: encode, packetize, protect, send, the host's jitter buffer and decode, composition,
/// the composite's encode, send, participant 2's jitter buffer, decode and render.
///
///     MeetingLatency [--participants 4] [--seconds 10] [--codec vp8]
@main
struct MeetingLatency {
    static func main() async throws {
        let arguments = ToolArguments(usage: "MeetingLatency [--participants N] [--seconds S] [--codec C]")
        let count = max(2, arguments.int("--participants", default: 4))
        let seconds = arguments.double("--seconds", default: 10)
        let codec = Codec(rawValue: arguments["--codec"] ?? "vp8") ?? .vp8
        let plan = LiveMeetingPlan(codec: codec, canvasWidth: 640, canvasHeight: 360, frameRate: 24)

        let hostControl = LiveMeetingControl()
        let host = Task { try await LiveMeetingHost.run(LiveMeetingHostConfiguration(plan: plan), control: hostControl) }
        while hostControl.localPort == nil { try await Task.sleep(for: .milliseconds(10)) }
        let hostAddress = UDPAddress(host: "127.0.0.1", port: hostControl.localPort!)

        let ids = (1 ... count).map { ParticipantID(UInt32($0)) }
        let rect = VideoLayout.grid(ids).pixelRects(width: plan.canvasWidth, height: plan.canvasHeight)[0]
        let probe = Probe()
        var controls: [LiveMeetingControl] = []
        var tasks: [Task<LiveMeetingControl.Figures, any Error>] = []
        for slot in 1 ... UInt32(count) {
            let uplink = SRTPMasterKey.random(profile: .aes128CmHmacSha1_80).keyingMaterial
            let downlink = SRTPMasterKey.random(profile: .aes128CmHmacSha1_80).keyingMaterial
            hostControl.send(.add(identity: "p\(slot)", slot: slot, uplinkKey: uplink, downlinkKey: downlink, sends: true))
            var configuration = LiveMeetingParticipantConfiguration(plan: plan, host: hostAddress, slot: slot, uplinkKey: uplink, downlinkKey: downlink)
            if slot == 1 { configuration.onCapture = { index, time in probe.captured(index, at: time) } }
            if slot == 2 {
                configuration.onRender = { frame, time in
                    if let counter = TestPatternSource.readFrameCounter(from: frame, in: rect) { probe.shown(counter, at: time) }
                }
            }
            let control = LiveMeetingControl()
            controls.append(control)
            tasks.append(Task { [configuration] in try await LiveMeetingParticipant.run(configuration, control: control) })
            while control.localPort == nil { try await Task.sleep(for: .milliseconds(10)) }
            hostControl.send(.address(identity: "p\(slot)", host: "127.0.0.1", port: control.localPort!))
        }
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        for control in controls { control.stop() }
        for task in tasks { _ = try? await task.value }
        hostControl.stop()
        _ = try? await host.value

        let latencies = probe.latencies.sorted()
        func percentile(_ fraction: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int((Double(latencies.count - 1) * fraction).rounded()))]
        }
        let report: [String: Any] = [
            "participants": count, "codec": codec.rawValue, "seconds": seconds, "framesMatched": latencies.count,
            "framesCaptured": probe.capturedCount,
            "glassToGlassP50Milliseconds": percentile(0.5), "glassToGlassP95Milliseconds": percentile(0.95),
            "glassToGlassMinMilliseconds": latencies.first ?? 0, "glassToGlassMaxMilliseconds": latencies.last ?? 0,
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// Capture times by frame index, and the latency of each index the first time it is shown.
final class Probe: Sendable {
    private struct State {
        var captures: [Int: ContinuousClock.Instant] = [:]
        var seen: Set<Int> = []
        var latencies: [Double] = []
    }

    private let state = Mutex(State())

    func captured(_ index: Int, at time: ContinuousClock.Instant) { state.withLock { $0.captures[index] = time } }

    func shown(_ index: Int, at time: ContinuousClock.Instant) {
        state.withLock { state in
            guard !state.seen.contains(index), let captured = state.captures[index] else { return }
            state.seen.insert(index)
            let elapsed = time - captured
            state.latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
    }

    var latencies: [Double] { state.withLock { $0.latencies } }
    var capturedCount: Int { state.withLock { $0.captures.count } }
}
