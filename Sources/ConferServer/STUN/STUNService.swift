import ConferNet
import ServiceLifecycle

/// The server's STUN responder (``STUNResponder``) on a UDP port of its own: each Binding
/// request gets the address it came from, so a device learns the address a NAT maps its
/// media socket to before announcing it. Bound by ``bind(host:port:metrics:)`` (so
/// the port is known before the HTTP server starts), it answers until the server shuts down.
///
/// One thread of its own blocks in `recvfrom` and answers with `sendto`, rather than a NIO
/// channel: a request costs two system calls and a parse, no wake-up through epoll, no
/// pipeline, no buffers handed between them. With one request in flight, on a core of its
/// own, the NIO handler spent 16–20 µs of CPU per answer, coturn 13–15, this thread 8
/// (`Benchmarks/peers/stun-binding.sh`, Benchmarks/README.md). The responder keeps no state
/// between requests, so nothing else needs to reach that thread.
struct STUNService: Service {
    let socket: STUNSocketThread

    /// The bound port.
    var port: Int { socket.port }

    /// Binds `host`:`port` (0: a free port) and starts answering.
    static func bind(host: String, port: Int, metrics: ServerMetrics) throws(UDPError) -> STUNService {
        STUNService(socket: try STUNSocketThread(host: host, port: port, metrics: metrics))
    }

    /// Answers until the server shuts down gracefully, or the group cancels it because
    /// another service failed (the HTTP port taken): either stops the thread.
    func run() async throws {
        let socket = socket
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await socket.finished()
            } onGracefulShutdown: {
                socket.stop()
            }
        } onCancel: {
            socket.stop()
        }
    }
}
