import ConferMedia
import ConferNet

/// FuzzSTUN: RFC 5769's three test vectors, and what Confer's own STUN code writes: a
/// device's Binding request, the server's answers to it from IPv4 and IPv6 sources, and its
/// two refusals (another method, an unknown comprehension-required attribute).
func stunSeeds(_ seeds: inout SeedWriter) {
    var random = SeededRandom(seed: 5389)
    let transaction = STUNBindingTransaction(server: UDPAddress(host: "198.51.100.10", port: 3478), start: .zero, random: &random)
    var responder = STUNResponder()
    var files: [(String, [UInt8])] = [("request.bin", transaction.request)]
    files.append(("answer-v4.bin", responder.respond(to: transaction.request, from: UDPAddress(host: "203.0.113.9", port: 50_123))!))
    files.append(("answer-v6.bin", responder.respond(to: transaction.request, from: UDPAddress(host: "2001:db8::9", port: 61_000))!))
    let id = transaction.transactionID
    let allocate = STUNMessage(method: 0x003, class: .request, transactionID: id).encoded()
    files.append(("allocate.bin", allocate))
    files.append(("refused-400.bin", responder.respond(to: allocate, from: UDPAddress(host: "203.0.113.9", port: 1))!))
    let unknown = STUNMessage(class: .request, transactionID: id, attributes: [STUNAttribute(type: 0x7F01, value: [1, 2, 3])]).encoded()
    files.append(("unknown-attribute.bin", unknown))
    files.append(("refused-420.bin", responder.respond(to: unknown, from: UDPAddress(host: "203.0.113.9", port: 1))!))
    files.append(("rfc5769-request.bin", hex("""
        000100582112a442b7e7a701bc34d686fa87dfae802200105354554e207465737420636c69656e74
        002400046e0001ff80290008932ff9b151263b36000600096576746a3a6836765920202000080014
        9aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a280280004e57a3bcf
        """)))
    files.append(("rfc5769-response-v4.bin", hex("""
        0101003c2112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f722000200008
        0001a147e112a643000800142b91f599fd9e90c38c7489f92af9ba53f06be7d780280004c07d4c96
        """)))
    files.append(("rfc5769-response-v6.bin", hex("""
        010100482112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f722000200014
        0002a1470113a9faa5d3f179bc25f4b5bed2b9d900080014a382954e4be67bf11784c97c8292c275
        bfe3ed4180280004c8fb0b4c
        """)))
    for (name, bytes) in files where name.hasPrefix("rfc5769") {
        precondition((try? STUNMessage(parsing: bytes)) != nil, "\(name) does not parse: its hex is wrong")
    }
    seeds.write("FuzzSTUN", files)
}

private func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter(\.isHexDigit))
    return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0 ... $0 + 1]), radix: 16)! }
}
