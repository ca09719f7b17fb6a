import ConferMedia
import ConferNet
@testable import ConferServer
import Testing

/// The STUN port's own thread: it answers from the socket, ends at once when stopped (it is
/// blocked in `recvfrom` until then), closes its socket as it ends, and says why a bind failed.
@Suite(.timeLimit(.minutes(1))) struct STUNSocketThreadTests {
    @Test func itAnswersUntilStoppedAndThenClosesItsPort() async throws {
        let thread = try STUNSocketThread(host: "127.0.0.1", port: 0, metrics: ServerMetrics())
        let stun = UDPAddress(host: "127.0.0.1", port: thread.port)
        #expect(thread.port > 0)
        for _ in 0 ..< 2 {
            let seen = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0), reflexiveThrough: stun) { socket in
                (socket.reflexive, socket.localPort)
            }
            #expect(seen.0 == .mapped(UDPAddress(host: "127.0.0.1", port: seen.1)))
        }
        // Nothing arrives while it waits in recvfrom: stopping alone must end it.
        thread.stop()
        // Polled, so a thread that never ends fails the test instead of hanging it.
        for _ in 0 ..< 500 where !thread.hasEnded { try await Task.sleep(for: .milliseconds(10)) }
        #expect(thread.hasEnded, "still in recvfrom 5 s after stop()")
        guard thread.hasEnded else { return }
        await thread.finished() // once ended, at once
        thread.stop() // and again, harmless
        // The port is closed: a Binding now meets ICMP port unreachable.
        let after = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0), reflexiveThrough: stun) { $0.reflexive }
        #expect(after == .unreachable, "\(String(describing: after))")
    }

    @Test func aBindThatFailsSaysWhy() throws {
        let holder = try STUNSocketThread(host: "127.0.0.1", port: 0, metrics: ServerMetrics())
        defer { holder.stop() }
        for (host, port, kind) in [("127.0.0.1", holder.port, UDPError.Kind.addressInUse),
                                   ("192.0.2.1", 0, .notLocal), // TEST-NET-1: on no interface here
                                   ("no-such-host.invalid", 0, .unresolvable)] {
            do {
                let thread = try STUNSocketThread(host: host, port: port, metrics: ServerMetrics())
                thread.stop()
                Issue.record("\(host):\(port) was bound")
            } catch {
                #expect(error.kind == kind, "\(host):\(port): \(error)")
            }
        }
    }
}
