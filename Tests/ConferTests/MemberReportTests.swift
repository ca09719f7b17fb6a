import Testing
@testable import ConferCLI

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
}
