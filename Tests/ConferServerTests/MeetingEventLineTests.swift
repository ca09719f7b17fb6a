@testable import ConferCLI
import ConferClient
import Testing

/// The lines `join` and `host` print for people.
@Suite struct MeetingEventLineTests {
    @Test func aHostChangeNamesTheHostOrSaysThereIsNone() {
        #expect(EventPrinter.human(.room(.hostChanged(identity: "hana"))) == "host is now hana")
        #expect(EventPrinter.human(.room(.hostChanged(identity: nil))) == "the room has no host now")
    }
}
