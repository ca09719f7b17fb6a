import ConferNet
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The server's STUN responder (``STUNResponder``) on a UDP port of its own: each Binding
/// request gets the address it came from, so a device learns the address a NAT maps its
/// media socket to before announcing it. Bound by ``bind(host:port:metrics:)`` (so the port
/// is known before the HTTP server starts), it answers until the server shuts down.
///
/// The answering runs in a channel handler on NIO's event loop, not in a task reading an
/// async stream: a request costs a parse and an answer, not a hop between threads, and the
/// answers to what one wake-up read (up to 32 datagrams, `recvmmsg`) leave in one flush.
struct STUNService: Service {
    let channel: any Channel
    let logger: Logger

    /// The bound port.
    var port: Int { channel.localAddress?.port ?? 0 }

    /// Binds `host`:`port` (0: a free port) and starts answering.
    static func bind(host: String, port: Int, metrics: ServerMetrics, logger: Logger) async throws(UDPError) -> STUNService {
        do {
            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.datagramVectorReadMessageCount, value: 32)
                // One `recvmmsg` per wake-up, not NIO's four: with one request in flight the
                // second read only meets EAGAIN, and it comes before the answer's flush. Epoll
                // is level-triggered, so what a read leaves behind wakes the loop again.
                .channelOption(.maxMessagesPerRead, value: 1)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 32 * 2048))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(STUNHandler(metrics: metrics)) }
                }
                .bind(host: host, port: port).get()
            return STUNService(channel: channel, logger: logger)
        } catch {
            let code = (error as? IOError)?.errnoCode
            if code == nil, error is SocketAddressError.UnknownHost || error is SocketAddressError {
                throw UDPError(.unresolvable, operation: "bind \(host):\(port)", detail: "\(error)")
            }
            throw UDPError(code == EADDRINUSE ? .addressInUse : code == EADDRNOTAVAIL ? .notLocal : .bindFailed,
                           operation: "bind \(host):\(port)", detail: "\(error)")
        }
    }

    /// Answers until the server shuts down gracefully, or the group cancels it because
    /// another service failed (the HTTP port taken): either closes the channel.
    func run() async throws {
        let channel = channel
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

/// Answers each datagram on the event loop; flushes once per read batch.
private final class STUNHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private var responder = STUNResponder()
    private let metrics: ServerMetrics
    private var pending = false

    init(metrics: ServerMetrics) { self.metrics = metrics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let before = responder.counts
        if let answer = responder.respond(to: Array(envelope.data.readableBytesView), fromAddressBytes: Self.addressBytes(envelope.remoteAddress),
                                          port: envelope.remoteAddress.port ?? -1) {
            var buffer = context.channel.allocator.buffer(capacity: answer.count)
            buffer.writeBytes(answer)
            // A write that fails (the asker's port is gone) loses one answer; the asker resends.
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
            pending = true
        }
        metrics.stun(responder.counts.answered > before.answered ? "answered" : responder.counts.refused > before.refused ? "refused" : "dropped")
    }

    /// The 4 or 16 bytes of an IP socket address, as the kernel gave them; none for another kind.
    private static func addressBytes(_ address: SocketAddress) -> [UInt8] {
        switch address {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        case .unixDomainSocket: []
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pending {
            pending = false
            context.flush()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An ICMP error for an earlier answer (ECONNREFUSED) is not the responder's end.
    }
}
