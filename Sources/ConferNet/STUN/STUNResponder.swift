/// A STUN Binding server's rule (RFC 8489 §6.3), without sockets: each request gets the
/// address it came from back in XOR-MAPPED-ADDRESS. That is all a device needs to learn
/// the address a NAT maps its media socket to.
///
/// Requests are not authenticated: the answer tells the asker only its own address, which
/// any packet it receives already does. A reply is at most 64 bytes longer than the request
/// that caused it (the address or an error, SOFTWARE and FINGERPRINT), so the server is a
/// poor amplifier.
/// Anything that is not a request is dropped and counted, never answered: responses and
/// indications, bytes that are not STUN, and messages whose FINGERPRINT does not match.
public struct STUNResponder: Sendable {
    /// What the responder did, counted from its start.
    public struct Counts: Hashable, Sendable, Codable {
        /// Binding requests answered with the sender's address.
        public var answered = 0
        /// Requests refused with an error response: another method than Binding (400), or a
        /// comprehension-required attribute the server does not know (420).
        public var refused = 0
        /// Datagrams dropped unanswered: not STUN, malformed, or not a request.
        public var dropped = 0

        /// Nothing counted yet.
        public init() {}
    }

    /// SOFTWARE in each response.
    public static let software = "Confer"

    private static let softwareAttribute = STUNAttribute(type: STUNAttribute.software, value: Array(software.utf8))

    /// What was done so far.
    public private(set) var counts = Counts()

    /// A responder with nothing counted.
    public init() {}

    /// The response to send back to `source` for `datagram`, or nil when nothing is sent
    /// (nil too when the source's host is not a numeric address).
    public mutating func respond(to datagram: [UInt8], from source: UDPAddress) -> [UInt8]? {
        respond(to: datagram, fromAddressBytes: STUNAttribute.addressBytes(source.host) ?? [], port: source.port)
    }

    /// The response to send back for `datagram` to the source whose address is the 4 or 16
    /// bytes `raw` (network order, as a socket reports it) and `port`, or nil when nothing is
    /// sent. A server reads the source this way: it costs no conversion to text and back.
    public mutating func respond(to datagram: [UInt8], fromAddressBytes raw: [UInt8], port: Int) -> [UInt8]? {
        guard let request = try? STUNMessage(parsing: datagram), request.messageClass == .request,
              let mapped = STUNAttribute.xorMapped(addressBytes: raw, port: port, transactionID: request.transactionID) else {
            counts.dropped += 1
            return nil
        }
        let software = Self.softwareAttribute
        guard request.method == STUNMessage.bindingMethod else {
            counts.refused += 1
            return Self.error(400, "Bad Request: only Binding", to: request, extra: [software])
        }
        let unknown = request.attributes.filter { $0.isComprehensionRequired && !STUNAttribute.understood.contains($0.type) }
        guard unknown.isEmpty else {
            counts.refused += 1
            // Each type once, two bytes each, as UNKNOWN-ATTRIBUTES lists them (§14.9).
            var types: [UInt16] = []
            for attribute in unknown where !types.contains(attribute.type) { types.append(attribute.type) }
            let list = STUNAttribute(type: STUNAttribute.unknownAttributes, value: types.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
            return Self.error(420, "Unknown Attribute", to: request, extra: [list, software])
        }
        counts.answered += 1
        return STUNMessage(method: request.method, class: .successResponse, transactionID: request.transactionID,
                           attributes: [mapped, software]).encoded()
    }

    /// An error response with ERROR-CODE `code` and `reason` (§14.8).
    private static func error(_ code: Int, _ reason: String, to request: STUNMessage, extra: [STUNAttribute]) -> [UInt8] {
        let value: [UInt8] = [0, 0, UInt8(code / 100), UInt8(code % 100)] + Array(reason.utf8)
        return STUNMessage(method: request.method, class: .errorResponse, transactionID: request.transactionID,
                           attributes: [STUNAttribute(type: STUNAttribute.errorCode, value: value)] + extra).encoded()
    }
}
