import ConferMedia
import ConferRTP

/// The receive side of transport-wide congestion control (libwebrtc's
/// `RemoteEstimatorProxy`): remembers when each transport-wide sequence number arrived and
/// periodically describes the arrivals since the last feedback.
///
/// Arrivals are kept in a ring by unwrapped sequence number. Each feedback covers the
/// window from the first number not yet reported to the highest received; a packet that
/// arrives after its number was reported missing moves the window start back to it (if
/// still remembered), so the sender learns it arrived after all.
struct ReceivePipelineTransportFeedback {
    private static let capacity = 4096
    /// A window starting further back than this is cut short (the sender forgets too).
    private static let maximumWindow: Int64 = 1000
    /// Most packets one message describes (it must fit a datagram).
    private static let maximumPacketsPerMessage = 500

    private var arrivals: [Timestamp?]
    private var numbers: [Int64]
    private var unwrapper = SequenceUnwrapper()
    private var windowStart: Int64?
    private var highest: Int64 = .min
    private var feedbackCount: UInt8 = 0
    private var results: [RTCPTransportFeedback.PacketResult] = []
    /// Feedback messages built.
    private(set) var messagesBuilt = 0

    init() {
        arrivals = Array(repeating: nil, count: Self.capacity)
        numbers = Array(repeating: -1, count: Self.capacity)
        results.reserveCapacity(Self.maximumPacketsPerMessage)
    }

    /// Notes that transport-wide sequence number `sequenceNumber` arrived at `arrival`.
    mutating func packetArrived(_ sequenceNumber: UInt16, at arrival: Timestamp) {
        var number = unwrapper.unwrap(sequenceNumber)
        if highest != .min, number - highest > Self.maximumWindow || highest - number >= Int64(Self.capacity) {
            // A jump this far is a new sender (a restart starts at a random number): begin
            // again rather than describe thousands of packets it never sent. (An outage of
            // more than 1000 packets is taken for one too; the sender then hears no loss
            // for it, which its loss-based estimate can spare.)
            startOver()
            number = unwrapper.unwrap(sequenceNumber)
        }
        let index = Int(number & Int64(Self.capacity - 1))
        if numbers[index] == number, arrivals[index] != nil { return }   // duplicate
        numbers[index] = number
        arrivals[index] = arrival
        highest = max(highest, number)
        if let start = windowStart {
            if number < start { windowStart = max(number, highest - Self.maximumWindow) }
        } else {
            windowStart = number
        }
    }

    private mutating func startOver() {
        unwrapper = SequenceUnwrapper()
        for index in numbers.indices {
            numbers[index] = -1
            arrivals[index] = nil
        }
        windowStart = nil
        highest = .min
    }

    /// Whether anything arrived that no feedback has described.
    var hasPending: Bool { windowStart.map { $0 <= highest } ?? false }

    /// Feedback messages for everything since the last call, from `senderSSRC` about `mediaSSRC`.
    mutating func makeFeedback(senderSSRC: UInt32, mediaSSRC: UInt32) -> [RTCPTransportFeedback] {
        guard var start = windowStart, start <= highest else { return [] }
        var messages: [RTCPTransportFeedback] = []
        while start <= highest {
            results.removeAll(keepingCapacity: true)
            var number = start
            while number <= highest, results.count < Self.maximumPacketsPerMessage {
                let index = Int(number & Int64(Self.capacity - 1))
                let arrival = numbers[index] == number ? arrivals[index] : nil
                results.append(.init(sequenceNumber: UInt16(truncatingIfNeeded: number), arrival: arrival))
                number += 1
            }
            if let message = try? RTCPTransportFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                                        feedbackPacketCount: feedbackCount, packets: results) {
                messages.append(message)
                feedbackCount &+= 1
                messagesBuilt += 1
            }
            start = number
        }
        windowStart = highest + 1
        return messages
    }
}
