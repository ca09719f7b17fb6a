import ConferMedia
@testable import ConferNet
import Testing

/// A device's Binding request in virtual time: when it is sent and resent, what ends it.
@Suite struct STUNBindingTransactionTests {
    let server = UDPAddress(host: "198.51.100.10", port: 3478)
    let mapped = UDPAddress(host: "203.0.113.50", port: 61_000)

    func response(to transaction: STUNBindingTransaction, attributes: [STUNAttribute]? = nil,
                  class messageClass: STUNMessage.Class = .successResponse, id: [UInt8]? = nil) -> [UInt8] {
        let id = id ?? transaction.transactionID
        return STUNMessage(class: messageClass, transactionID: id,
                           attributes: attributes ?? [STUNAttribute.xorMapped(mapped, transactionID: id)!]).encoded()
    }

    @Test func theRequestIsResentAfter100_300And700MsAndGivesUpAt1500() {
        var random = SeededRandom(seed: 3)
        let start = Timestamp.seconds(10)
        var transaction = STUNBindingTransaction(server: server, start: start, random: &random)
        var sends: [Int64] = []
        var now = start
        while transaction.outcome == nil {
            if transaction.sendDue(at: now) { sends.append((now - start).milliseconds) }
            now += .milliseconds(10)
        }
        #expect(sends == [0, 100, 300, 700])
        #expect(transaction.outcome == .timedOut && (now - start).milliseconds == 1510)
        let due = transaction.sendDue(at: now)
        #expect(transaction.nextDeadline == nil && !due)
    }

    @Test func anUnreachableServerEndsItAtOnceAndOnlyWhileItRuns() {
        var random = SeededRandom(seed: 6)
        var transaction = STUNBindingTransaction(server: server, start: .zero, random: &random)
        _ = transaction.sendDue(at: .zero)
        transaction.serverUnreachable()
        #expect(transaction.outcome == .unreachable && transaction.nextDeadline == nil)
        let due = transaction.sendDue(at: .milliseconds(100))
        #expect(!due, "no resends once ended")
        var answered = STUNBindingTransaction(server: server, start: .zero, random: &random)
        _ = answered.take(response(to: answered), from: server)
        answered.serverUnreachable()
        #expect(answered.outcome == .mapped(mapped), "an ICMP error after the answer changes nothing")
    }

    @Test func aLateCallerSendsOnceForTheSendsItMissed() {
        var random = SeededRandom(seed: 4)
        var transaction = STUNBindingTransaction(server: server, start: .zero, random: &random)
        var due = transaction.sendDue(at: .zero)
        #expect(due)
        #expect(transaction.nextDeadline == .milliseconds(100))
        due = transaction.sendDue(at: .milliseconds(400))
        #expect(due, "100 and 300 both passed: one send")
        #expect(transaction.sent == 3 && transaction.nextDeadline == .milliseconds(700))
        due = transaction.sendDue(at: .milliseconds(600))
        #expect(!due)
    }

    @Test func onlyTheServersResponseToThisRequestEndsIt() {
        var random = SeededRandom(seed: 5)
        var transaction = STUNBindingTransaction(server: server, start: .zero, random: &random)
        _ = transaction.sendDue(at: .zero)
        let answer = response(to: transaction)
        let others: [(String, [UInt8], UDPAddress)] = [
            ("another host", answer, UDPAddress(host: "198.51.100.11", port: 3478)),
            ("another port", answer, UDPAddress(host: "198.51.100.10", port: 3479)),
            ("another transaction", response(to: transaction, id: Array(repeating: 0, count: 12)), server),
            ("a request", response(to: transaction, class: .request), server),
            ("media", [0x80, 0x60, 0, 1, 0, 0, 0, 0], server),
            ("a success without an address", response(to: transaction, attributes: []), server),
        ]
        for (what, datagram, source) in others {
            let taken = transaction.take(datagram, from: source)
            #expect(!taken, "\(what)")
        }
        #expect(transaction.outcome == nil)
        var taken = transaction.take(answer, from: server)
        #expect(taken)
        #expect(transaction.outcome == .mapped(mapped))
        taken = transaction.take(answer, from: server)
        #expect(!taken, "ended")
    }

    @Test func aPlainMappedAddressOrARefusalEndsItToo() {
        var random = SeededRandom(seed: 6)
        var plain = STUNBindingTransaction(server: server, start: .zero, random: &random)
        let value: [UInt8] = [0, 1, 0xEE, 0x48, 203, 0, 113, 50]
        var taken = plain.take(response(to: plain, attributes: [STUNAttribute(type: STUNAttribute.mappedAddress, value: value)]), from: server)
        #expect(taken && plain.outcome == .mapped(mapped))

        var refused = STUNBindingTransaction(server: server, start: .zero, random: &random)
        taken = refused.take(response(to: refused, attributes: [STUNAttribute(type: STUNAttribute.errorCode, value: [0, 0, 4, 20])],
                                      class: .errorResponse), from: server)
        #expect(taken && refused.outcome == .refused(code: 420))
        #expect(plain.transactionID != refused.transactionID)
    }
}
