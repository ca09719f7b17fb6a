import Testing
import ConferSession
import Foundation

/// Every refusal has a sentence of its own for people, beside its code.
@Suite struct SessionRefusalTests {
    @Test func everyRefusalExplainsItselfDistinctly() {
        let explanations = SessionRefusal.allCases.map(\.explanation)
        #expect(explanations.allSatisfy { !$0.isEmpty && $0 == $0.trimmingCharacters(in: .whitespaces) && !$0.hasSuffix(".") })
        #expect(Set(explanations).count == SessionRefusal.allCases.count, "no two refusals read alike")
    }
}
