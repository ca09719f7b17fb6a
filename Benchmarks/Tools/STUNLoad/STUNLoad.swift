import ConferNet
import Foundation
import Glibc
import ToolSupport

/// Binding requests against a STUN server, as fast as it answers: `--window` requests in
/// flight from one UDP socket, each new one sent as an answer arrives, for `--seconds`. The
/// same client measures any server (Confer's responder in `confer serve`, coturn's), so their
/// rates and round trips compare. A request unanswered after 200 ms counts as lost and is
/// replaced. Every answer is parsed and its XOR-MAPPED-ADDRESS checked against this socket.
///
///     STUNLoad --server HOST:PORT [--window 16] [--seconds 5]
@main
struct STUNLoad {
    static func main() throws {
        let arguments = ToolArguments(usage: "STUNLoad --server HOST:PORT [--window N] [--seconds S]")
        let named = arguments.required("--server")
        guard let server = UDPAddress(parsing: named), inet_addr(server.host) != INADDR_NONE else {
            arguments.fail("--server must be an IPv4 HOST:PORT, such as 127.0.0.1:3478; it was \(named)")
        }
        let window = arguments.int("--window", default: 16)
        let seconds = arguments.double("--seconds", default: 5)

        let (descriptor, localPort) = try LoopbackSocket.bind()
        let me = UDPAddress(host: "127.0.0.1", port: localPort)
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_port = in_port_t(UInt16(server.port).bigEndian)
        to.sin_addr.s_addr = inet_addr(server.host)

        let clock = ContinuousClock()
        let start = clock.now
        var next: UInt64 = 1
        var inFlight: [UInt64: ContinuousClock.Instant] = [:]
        var roundTrips: [Double] = []
        var sent = 0, lost = 0, wrong = 0
        var buffer = [UInt8](repeating: 0, count: 1500)
        func send() {
            let id = next
            next += 1
            // The id's eight bytes, little-endian, then four zeros.
            let transaction = (0 ..< 12).map { $0 < 8 ? UInt8(truncatingIfNeeded: id >> (8 * UInt64($0))) : 0 }
            let request = STUNMessage(class: .request, transactionID: transaction).encoded()
            _ = request.withUnsafeBytes { bytes in
                withUnsafePointer(to: &to) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                } }
            }
            inFlight[id] = clock.now
            sent += 1
        }
        for _ in 0 ..< window { send() }
        while clock.now - start < .seconds(seconds) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 50) > 0 {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0, let response = try? STUNMessage(parsing: Array(buffer[..<count])) else { wrong += 1; continue }
                let id = response.transactionID.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
                guard let sentAt = inFlight.removeValue(forKey: id) else { wrong += 1; continue }
                let mapped = try? response.attribute(STUNAttribute.xorMappedAddress)?.address(transactionID: response.transactionID)
                if mapped != me { wrong += 1 }
                let trip = clock.now - sentAt
                roundTrips.append(Double(trip.components.seconds) * 1e6 + Double(trip.components.attoseconds) / 1e12)
                send()
            }
            let now = clock.now
            for (id, at) in inFlight where now - at > .milliseconds(200) {
                inFlight.removeValue(forKey: id)
                lost += 1
                send()
            }
        }
        let elapsed = clock.now - start
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        roundTrips.sort()
        func percentile(_ p: Double) -> Double { roundTrips.isEmpty ? 0 : roundTrips[min(roundTrips.count - 1, Int(Double(roundTrips.count) * p))] }
        print("""
            {"server": "\(server)", "window": \(window), "seconds": \(String(format: "%.2f", wall)), "sent": \(sent), \
            "answered": \(roundTrips.count), "lost": \(lost), "wrong": \(wrong), \
            "answersPerSecond": \(Int(Double(roundTrips.count) / wall)), \
            "roundTripMicroseconds": {"p50": \(Int(percentile(0.5))), "p99": \(Int(percentile(0.99)))}}
            """)
        close(descriptor)
    }
}
