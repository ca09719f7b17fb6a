@testable import ConferCLI
import ConferClient
@testable import ConferSession
import Testing

/// The lines `join` and `host` print for people.
@Suite struct MeetingEventLineTests {
    @Test func aHostChangeNamesTheHostOrSaysThereIsNone() {
        #expect(EventPrinter.human(.room(.hostChanged(identity: "hana"))) == "host is now hana")
        #expect(EventPrinter.human(.room(.hostChanged(identity: nil))) == "the room has no host now")
    }

    @Test func aMessageToSomeSaysToWhom() {
        var message = ChatMessage(id: 1, from: "boss", senderSequence: 1, to: ["bob", "carol"], kind: nil, text: "psst", sent: SessionTime(milliseconds: 0))
        #expect(EventPrinter.human(.room(.message(message))) == "boss (to bob, carol): psst")
        message.to = nil
        #expect(EventPrinter.human(.room(.message(message))) == "boss: psst")
    }

    @Test func aRefusalSaysWhatItMeans() {
        #expect(EventPrinter.human(.refused(action: "kick", reason: .notHost)) == "refused kick: notHost (only the host may do this)")
    }

    @Test func aDeviceRequestReadsForTheMemberAskedAndForTheHost() {
        let request = DeviceRequest(id: 1, identity: "alice", device: .camera, created: SessionTime(milliseconds: 0),
                                    expires: SessionTime(milliseconds: 30_000))
        #expect(EventPrinter.human(.room(.deviceRequested(request)), as: "alice") == "the host asks you to turn your camera on")
        #expect(EventPrinter.human(.room(.deviceRequested(request)), as: "hana") == "alice is asked to turn the camera on")
    }

    @Test func theEndOfADeviceRequestIsSaid() {
        let line = EventPrinter.human(.room(.deviceRequestEnded(id: 3, identity: "alice", device: .microphone, outcome: .rejected)))
        #expect(line == "the request that alice turn the microphone on: rejected")
    }
}
