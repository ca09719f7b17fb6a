public import ConferMedia

/// One Binding request from a device to a STUN server, as a value without clock or socket
/// (RFC 8489 §6.2.1): the caller sends ``request`` whenever ``sendDue(at:)`` says so, hands
/// over what arrives (``take(_:from:)``), and reads ``outcome``.
///
/// The request goes out at once and again after 100, 300 and 700 ms — RFC 8489's doubling
/// retransmissions, started at 100 ms rather than 500 because a call waits on the answer —
/// and the transaction fails 1.5 s after it started. Only a response from the server's
/// address with the request's transaction id counts; anything else arriving meanwhile is
/// left alone.
public struct STUNBindingTransaction: Sendable {
    /// When the request goes out, after the start.
    public static let sendOffsets: [TimeDelta] = [.zero, .milliseconds(100), .milliseconds(300), .milliseconds(700)]
    /// How long after the start the transaction gives up.
    public static let timeout = TimeDelta.milliseconds(1500)

    /// How it ended.
    public enum Outcome: Hashable, Sendable {
        /// The server saw the request come from this address.
        case mapped(UDPAddress)
        /// The server refused with this ERROR-CODE.
        case refused(code: Int)
        /// No response came in time.
        case timedOut
        /// The network said the server cannot be reached (an ICMP error: nothing listens at
        /// its port, or no route leads there): no answer will come, so none is waited for.
        case unreachable
    }

    /// The server asked.
    public let server: UDPAddress
    /// The request's twelve random bytes.
    public let transactionID: [UInt8]
    /// The request as sent (and resent).
    public let request: [UInt8]
    /// Nil while the transaction runs.
    public private(set) var outcome: Outcome?
    /// Requests sent so far.
    public private(set) var sent = 0
    private let start: Timestamp

    /// A transaction with `server` starting at `start`, its id drawn from `random`.
    public init(server: UDPAddress, start: Timestamp, random: inout some RandomNumberGenerator) {
        self.server = server
        self.start = start
        transactionID = (0 ..< 12).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        request = STUNMessage(class: .request, transactionID: transactionID).encoded()
    }

    /// When something next happens: the next send, or the timeout; nil once ended.
    public var nextDeadline: Timestamp? {
        guard outcome == nil else { return nil }
        return sent < Self.sendOffsets.count ? start + Self.sendOffsets[sent] : start + Self.timeout
    }

    /// Whether ``request`` is to be sent now; at the timeout, ends the transaction instead.
    public mutating func sendDue(at now: Timestamp) -> Bool {
        guard outcome == nil else { return false }
        if now >= start + Self.timeout {
            outcome = .timedOut
            return false
        }
        guard sent < Self.sendOffsets.count, now >= start + Self.sendOffsets[sent] else { return false }
        // Sends missed while the caller was late are not made up: one now is enough.
        while sent < Self.sendOffsets.count, now >= start + Self.sendOffsets[sent] { sent += 1 }
        return true
    }

    /// The socket reported that the server cannot be reached (ICMP port or host
    /// unreachable): the transaction ends as ``Outcome/unreachable`` rather than waiting out
    /// its timeout. Nothing once it has ended.
    public mutating func serverUnreachable() {
        guard outcome == nil else { return }
        outcome = .unreachable
    }

    /// Takes a datagram that arrived; true when it was this transaction's response (which
    /// ends it), false when it is someone else's or not a response.
    public mutating func take(_ datagram: [UInt8], from source: UDPAddress) -> Bool {
        guard outcome == nil, source.port == server.port,
              let from = STUNAttribute.addressBytes(source.host), from == STUNAttribute.addressBytes(server.host),
              let response = try? STUNMessage(parsing: datagram), response.transactionID == transactionID,
              response.method == STUNMessage.bindingMethod else { return false }
        switch response.messageClass {
        case .successResponse:
            let attribute = response.attribute(STUNAttribute.xorMappedAddress) ?? response.attribute(STUNAttribute.mappedAddress)
            guard let address = try? attribute?.address(transactionID: transactionID) else { return false }
            outcome = .mapped(address)
        case .errorResponse:
            let value = response.attribute(STUNAttribute.errorCode)?.value ?? []
            outcome = .refused(code: value.count >= 4 ? Int(value[2] & 0x07) * 100 + Int(value[3]) : 0)
        case .request, .indication:
            return false
        }
        return true
    }
}
