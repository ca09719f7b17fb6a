import ConferMedia
@testable import ConferNet
import Testing

/// The server's rule: a Binding request gets its source back; nothing else gets an answer
/// but a typed refusal, and no answer is much larger than what caused it.
@Suite struct STUNResponderTests {
    let asker = UDPAddress(host: "203.0.113.9", port: 50_123)

    @Test func aBindingRequestGetsTheAddressItCameFrom() throws {
        var responder = STUNResponder()
        var random = SeededRandom(seed: 1)
        let transaction = STUNBindingTransaction(server: UDPAddress(host: "198.51.100.10", port: 3478), start: .zero, random: &random)
        let answer = responder.respond(to: transaction.request, from: asker)
        let bytes = try #require(answer)
        let response = try STUNMessage(parsing: bytes)
        #expect(response.messageClass == .successResponse && response.transactionID == transaction.transactionID)
        #expect(try response.attribute(STUNAttribute.xorMappedAddress)?.address(transactionID: response.transactionID) == asker)
        #expect(response.fingerprinted)
        #expect(response.attribute(STUNAttribute.software)?.value == Array("Confer".utf8))
        // The RFC 5769 request (ICE's attributes, a credential the server does not check) is answered too.
        let sampleAnswer = responder.respond(to: STUNMessageTests.sampleRequest, from: UDPAddress(host: "2001:db8::7", port: 9))
        let sample = try #require(sampleAnswer)
        #expect(try STUNMessage(parsing: sample).attribute(STUNAttribute.xorMappedAddress)?
            .address(transactionID: STUNMessageTests.transactionID) == UDPAddress(host: "2001:db8::7", port: 9))
        #expect(responder.counts.answered == 2 && responder.counts.refused == 0 && responder.counts.dropped == 0)
    }

    /// A server hands over the source as the socket gave it: 4 or 16 bytes and a port. The
    /// answer is the one the text form gets, and a source of another length is dropped.
    @Test func theSourceAsBytesGetsTheSameAnswer() throws {
        var responder = STUNResponder()
        var random = SeededRandom(seed: 2)
        let request = STUNBindingTransaction(server: UDPAddress(host: "198.51.100.10", port: 3478), start: .zero, random: &random).request
        let fromText = responder.respond(to: request, from: asker)
        let fromBytes = responder.respond(to: request, fromAddressBytes: [203, 0, 113, 9], port: 50_123)
        #expect(fromBytes != nil && fromBytes == fromText)
        let v6 = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [7]
        let bytes6 = responder.respond(to: request, fromAddressBytes: v6, port: 9)
        let answer6 = try STUNMessage(parsing: try #require(bytes6))
        #expect(try answer6.attribute(STUNAttribute.xorMappedAddress)?.address(transactionID: answer6.transactionID)
            == UDPAddress(host: "2001:db8::7", port: 9))
        let fromNothing = responder.respond(to: request, fromAddressBytes: [], port: 9)
        let fromAName = responder.respond(to: request, from: UDPAddress(host: "example.com", port: 9))
        #expect(fromNothing == nil && fromAName == nil)
        #expect(responder.counts.answered == 3 && responder.counts.dropped == 2)
    }

    @Test func whatIsNotARequestIsDroppedAndCounted() {
        var responder = STUNResponder()
        var damaged = STUNMessageTests.sampleRequest
        damaged[30] ^= 0x20
        for datagram in [STUNMessageTests.sampleIPv4Response, // a response
                         STUNMessage(class: .indication, transactionID: Array(repeating: 1, count: 12)).encoded(),
                         damaged, // its FINGERPRINT no longer matches
                         [0x80, 0x60, 0x00, 0x01] + Array(repeating: 0, count: 40), // RTP
                         []] {
            let answer = responder.respond(to: datagram, from: asker)
            #expect(answer == nil)
        }
        #expect(responder.counts.dropped == 5 && responder.counts.answered == 0)
    }

    @Test func otherMethodsAndUnknownRequiredAttributesAreRefused() throws {
        var responder = STUNResponder()
        let id = Array(repeating: UInt8(7), count: 12)
        // TURN's Allocate (0x003).
        let allocateAnswer = responder.respond(to: STUNMessage(method: 0x003, class: .request, transactionID: id).encoded(), from: asker)
        let allocate = try STUNMessage(parsing: try #require(allocateAnswer))
        #expect(allocate.messageClass == .errorResponse && allocate.method == 0x003)
        #expect(Array(try #require(allocate.attribute(STUNAttribute.errorCode)).value.prefix(4)) == [0, 0, 4, 0])
        // A comprehension-required type the server does not know, twice, and an optional one.
        let unknown = STUNMessage(class: .request, transactionID: id, attributes: [
            STUNAttribute(type: 0x7F01, value: [1]), STUNAttribute(type: 0x8030, value: [2]), STUNAttribute(type: 0x7F01, value: [3]),
        ])
        let refusalAnswer = responder.respond(to: unknown.encoded(), from: asker)
        let refusal = try STUNMessage(parsing: try #require(refusalAnswer))
        #expect(Array(try #require(refusal.attribute(STUNAttribute.errorCode)).value.prefix(4)) == [0, 0, 4, 20])
        #expect(refusal.attribute(STUNAttribute.unknownAttributes)?.value == [0x7F, 0x01], "each unknown type once")
        // Optional ones alone are ignored.
        let optional = STUNMessage(class: .request, transactionID: id, attributes: [STUNAttribute(type: 0x8030, value: [2])])
        let optionalAnswer = responder.respond(to: optional.encoded(), from: asker)
        #expect(try STUNMessage(parsing: try #require(optionalAnswer)).messageClass == .successResponse)
        #expect(responder.counts.refused == 2 && responder.counts.answered == 1)
    }

    /// No answer is more than 64 bytes longer than the datagram that caused it, whatever
    /// the request: the responder is a poor amplifier.
    @Test func answersAreSmall() {
        var responder = STUNResponder()
        var random = SeededRandom(seed: 64)
        var answers = 0
        let sources = [asker, UDPAddress(host: "2001:db8::1:2:3:4", port: 65_535)]
        for round in 0 ..< 5000 {
            let attributes = (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in
                STUNAttribute(type: [0x7F01, 0x8030, STUNAttribute.username, 0x0024].randomElement(using: &random)!,
                              value: Array(repeating: 0, count: Int.random(in: 0 ... 8, using: &random)))
            }
            let request = STUNMessage(method: [1, 1, 3].randomElement(using: &random)!, class: .request,
                                      transactionID: (0 ..< 12).map { _ in UInt8.random(in: 0 ... 255, using: &random) },
                                      attributes: attributes, fingerprinted: Bool.random(using: &random)).encoded()
            guard let answer = responder.respond(to: request, from: sources[round % 2]) else { continue }
            answers += 1
            #expect(answer.count <= request.count + 64, "\(answer.count) bytes for \(request.count)")
        }
        #expect(answers == 5000)
    }
}
