import Testing
@testable import ConferCLI
import ConferLive

/// The summary `confer join` and `confer host` print for people.
@Suite struct MemberReportTests {
    func report(admitted: Bool, members: [String], endReason: String?) -> MemberReport {
        MemberReport(identity: "zed", role: "participant", room: "r1", admitted: admitted, slot: nil, endReason: endReason,
                     members: members, host: nil, eventCounts: [:], messages: [], approved: [], declined: [],
                     connectInfo: nil, media: nil)
    }

    @Test func aMemberNeverAdmittedSaysNothingOfTheRoomsMembers() {
        #expect(report(admitted: false, members: [], endReason: "refused").humanSummary
                == ["zed (participant) in r1: not admitted, ended: refused"])
    }

    @Test func anAdmittedMemberListsWhoWasThere() {
        #expect(report(admitted: true, members: ["host", "zed"], endReason: nil).humanSummary
                == ["zed (participant) in r1: admitted, ended: left", "members at the end: host, zed"])
        #expect(report(admitted: true, members: [], endReason: "kicked").humanSummary.last == "members at the end: none")
    }

    @Test func aHostSaysOnlyTheAnswersItGave() {
        var host = report(admitted: true, members: ["zed"], endReason: nil)
        host.approved = ["al"]
        #expect(host.humanSummary.last == "approved: al")
        host.declined = ["bo", "cy"]
        #expect(host.humanSummary.last == "approved: al; declined: bo, cy")
        host.approved = []
        #expect(host.humanSummary.last == "declined: bo, cy")
    }

    @Test func consentIsMentionedOnlyWhenSomethingIsAmiss() {
        var figures = LiveMeetingControl.Figures()
        figures.framesSent = 240
        figures.framesReceived = 238
        figures.consentChallengesSent = 2
        figures.consentGrants = 1
        figures.datagramsWithheld = 3
        #expect(MemberMediaReport(figures, output: nil).humanSummary
                == ["media: sent 240 frames and 0 audio packets, received 238 frames and 0 audio packets"],
                "a grant after two challenges, and what went before it held back, is how every join goes")
        figures.consentChecksRefused = 3
        #expect(MemberMediaReport(figures, output: "m.y4m").humanSummary == [
            "media: sent 240 frames and 0 audio packets, received 238 frames and 0 audio packets, wrote m.y4m",
            "consent: refused 3 checks",
        ])
        figures.consentGrants = 0
        figures.datagramsFromUnknownAddresses = 5
        #expect(MemberMediaReport(figures, output: nil).humanSummary.last
                == "consent: no address answered its 2 challenges, so no media went; refused 3 checks; "
                + "dropped 5 datagrams from addresses no member announced")
    }
}
