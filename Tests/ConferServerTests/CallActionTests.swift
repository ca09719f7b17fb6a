@testable import ConferClient
import ConferSession
import Synchronization
import Testing

/// What a `Call` sends for its actions: everything while the call lasts, nothing once it has
/// ended (the server could only refuse it).
@Suite struct CallActionTests {
    @Test func anEndedCallSendsNothingMore() async {
        let sent = Mutex<[String]>([])
        let record = CallRecord(id: "c1", caller: "alice", callerDevice: "cli", callee: "bob", video: true, started: SessionTime(milliseconds: 1))
        let ringing = CallInfo(record: record, phase: .ringing, result: nil, callerSettings: CallSettings(video: true),
                               calleeSettings: CallSettings(video: true))
        let call = Call(info: ringing, identity: "alice") { message in sent.withLock { $0.append("\(message)") } }
        await call.describeMedia(MediaDescription(host: "127.0.0.1", port: 5000, codec: "vp8", width: 320, height: 180, frameRate: 24))
        await call.mute()
        #expect(sent.withLock { $0.count } == 2, "a ringing call sends its actions")

        var ended = ringing
        ended.phase = .ended
        ended.result = .declined
        call.apply(ended)
        await call.describeMedia(MediaDescription(host: "127.0.0.1", port: 5000, codec: "vp8", width: 320, height: 180, frameRate: 24))
        await call.end()
        await call.setItems(["k": "v"])
        #expect(sent.withLock { $0.count } == 2, "after the end, nothing: \(sent.withLock { $0 })")
    }
}
