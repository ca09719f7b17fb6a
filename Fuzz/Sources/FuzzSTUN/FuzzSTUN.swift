import ConferMedia
import ConferNet
import FuzzSupport

/// Feeds arbitrary bytes to the STUN reader, the server's responder and a device's Binding
/// transaction: a message or a typed error, never a crash. What is read writes back and reads
/// the same; an answer is itself STUN, never more than 64 bytes longer than what caused it,
/// the same whether the source is given as text or as the socket's bytes, and only a request
/// is answered.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let message = try? STUNMessage(parsing: bytes)
    if let message {
        guard let reread = try? STUNMessage(parsing: message.encoded()) else {
            preconditionFailure("what Confer writes does not read back: \(message)")
        }
        precondition(reread == message, "read back differs: \(message) became \(reread)")
        for attribute in message.attributes where attribute.type == STUNAttribute.xorMappedAddress {
            // The first byte is reserved (ignored when read, zero when written), and an
            // IPv4-mapped IPv6 address is written as IPv4; otherwise an address reads back as written.
            if let address = try? attribute.address(transactionID: message.transactionID) {
                let id = message.transactionID
                guard let written = STUNAttribute.xorMapped(address, transactionID: id), let again = try? written.address(transactionID: id) else {
                    preconditionFailure("\(address), read from XOR-MAPPED-ADDRESS, cannot be written back")
                }
                precondition(again.port == address.port && STUNAttribute.xorMapped(again, transactionID: id) == written,
                             "\(address) reads back as \(again)")
                if attribute.value[1] == 1 { precondition(written.value.dropFirst() == attribute.value.dropFirst(), "an IPv4 address changed") }
            }
        }
    }
    var responder = STUNResponder()
    var byBytes = STUNResponder()
    let sources: [(UDPAddress, [UInt8])] = [(UDPAddress(host: "198.51.100.7", port: 40_000), [198, 51, 100, 7]),
                                            (UDPAddress(host: "2001:db8::9", port: 1), [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [9])]
    for (source, raw) in sources {
        let answer = responder.respond(to: bytes, from: source)
        // The server's form (the source as the socket's bytes) answers the same.
        precondition(byBytes.respond(to: bytes, fromAddressBytes: raw, port: source.port) == answer, "the two forms of the source answer differently")
        if let answer {
            precondition(message?.messageClass == .request, "answered what is not a request")
            precondition(answer.count <= bytes.count + 64, "an answer of \(answer.count) bytes to \(bytes.count)")
            guard let read = try? STUNMessage(parsing: answer) else { preconditionFailure("the answer is not STUN") }
            precondition(read.transactionID == message?.transactionID, "the answer names another transaction")
        }
    }
    // A device waiting on the server takes whatever arrives without crashing; what ends its
    // transaction is a response with its own id.
    var random = SeededRandom(seed: 1)
    var transaction = STUNBindingTransaction(server: UDPAddress(host: "198.51.100.10", port: 3478), start: .zero, random: &random)
    if transaction.take(bytes, from: transaction.server) {
        precondition(message?.transactionID == transaction.transactionID, "ended by another transaction's message")
    }
    return 0
}

@_cdecl("FuzzSTUN_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
