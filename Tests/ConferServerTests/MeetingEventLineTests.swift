@testable import ConferCLI
import ConferClient
import Testing

/// The lines `join` and `host` print for people.
@Suite struct MeetingEventLineTests {
    @Test func aHostChangeNamesTheHostOrSaysThereIsNone() {
        #expect(EventPrinter.human(.room(.hostChanged(identity: "hana"))) == "host is now hana")
        #expect(EventPrinter.human(.room(.hostChanged(identity: nil))) == "the room has no host now")
    }

    @Test func aRefusalSaysWhatItMeans() {
        #expect(EventPrinter.human(.refused(action: "kick", reason: .notHost)) == "refused kick: notHost (only the host may do this)")
    }

    @Test func theEndOfADeviceRequestIsSaid() {
        let line = EventPrinter.human(.room(.deviceRequestEnded(id: 3, identity: "alice", device: .microphone, outcome: .rejected)))
        #expect(line == "the request that alice turn the microphone on: rejected")
    }
}
