import NIOCore
import NIOPosix

/// A host and port for UDP.
public struct UDPAddress: Hashable, Sendable, CustomStringConvertible {
    /// A numeric IPv4/IPv6 address or a host name.
    public var host: String
    /// The UDP port.
    public var port: Int

    /// The address `host`:`port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (or `[IPv6]:PORT`); nil when it is not of that form.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// One datagram received on a ``UDPSocket``.
public struct UDPDatagram: Sendable {
    /// The payload.
    public var bytes: [UInt8]
    /// Who sent it.
    public var source: UDPAddress
}

/// Why a socket could not be opened or used.
public struct UDPError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem it was, for callers to switch on.
    public enum Kind: String, Sendable, Hashable {
        /// Another socket holds the address and port: pick another port, or 0 for a free one.
        case addressInUse
        /// The address to bind is not one of this machine's.
        case notLocal
        /// The address could not be bound for another reason (no permission, say).
        case bindFailed
        /// A host name or address could not be resolved.
        case unresolvable
        /// No route leads from this machine to the address.
        case unreachable
    }

    /// What kind of problem it was.
    public let kind: Kind
    /// What was being done.
    public let operation: String
    /// The underlying error's text.
    public let detail: String

    /// An error of `kind` while doing `operation`, for the underlying reason `detail`.
    public init(_ kind: Kind, operation: String, detail: String) {
        self.kind = kind
        self.operation = operation
        self.detail = detail
    }

    public var description: String {
        switch kind {
        case .addressInUse: "UDP \(operation): the port is in use by another socket; choose another port, or port 0 for a free one"
        case .notLocal: "UDP \(operation): the address is not one of this machine's"
        case .bindFailed, .unresolvable, .unreachable: "UDP \(operation): \(detail)"
        }
    }
}

/// A bound UDP socket on SwiftNIO, usable only inside ``withSocket(bindingTo:_:)``.
///
/// The scoped form follows `NIOAsyncChannel.executeThenClose`: the socket is closed when
/// the body returns or throws, so no socket outlives its user.
public struct UDPSocket: Sendable {
    /// The port the socket is bound to (useful after binding port 0).
    public let localPort: Int
    /// What the STUN server said, when the socket was bound with one: where it saw the
    /// socket's datagrams come from (the NAT's mapping), a refusal, or no answer.
    public let reflexive: STUNBindingTransaction.Outcome?
    let outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>
    let inboundStream: NIOAsyncChannelInboundStream<AddressedEnvelope<ByteBuffer>>
    let allocator: ByteBufferAllocator

    /// Datagrams as they arrive.
    public var datagrams: some AsyncSequence<UDPDatagram, any Error> {
        inboundStream.map { envelope in
            UDPDatagram(bytes: Array(envelope.data.readableBytesView),
                        source: UDPAddress(host: envelope.remoteAddress.ipAddress ?? "?", port: envelope.remoteAddress.port ?? 0))
        }
    }

    /// Sends `bytes` to `destination`.
    public func send(_ bytes: some Collection<UInt8>, to destination: UDPAddress) async throws {
        let address: SocketAddress
        do { address = try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.port) } catch {
            throw UDPError(.unresolvable, operation: "resolve \(destination)", detail: "\(error)")
        }
        var buffer = allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        try await outbound.write(AddressedEnvelope(remoteAddress: address, data: buffer))
    }

    /// Binds a socket to `address` (port 0 picks a free port), runs `body` with it, and closes it.
    ///
    /// With `reflexiveThrough`, a STUN server's numeric address, the socket first asks that
    /// server which address its datagrams arrive from (``STUNBindingTransaction``, up to
    /// 1.5 s) and ``reflexive`` holds the outcome: the address a NAT maps the socket to.
    public static func withSocket<R: Sendable>(
        bindingTo address: UDPAddress,
        receiveBufferBytes: Int = 4 << 20,
        reflexiveThrough stunServer: UDPAddress? = nil,
        _ body: (UDPSocket) async throws -> R
    ) async throws -> R {
        let channel: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
        var reflexive: STUNBindingTransaction.Outcome?
        do {
            // No SO_REUSEADDR: on Linux it lets a second UDP socket bind the same port, and one
            // of two receivers would then silently get nothing. Binding fails instead.
            let bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferBytes))
                // Datagrams up to 64 KiB arrive whole.
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
            @Sendable func wrapSynchronously(_ channel: Channel) throws -> NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>> {
                try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
            }
            let wrap: @Sendable (Channel) -> EventLoopFuture<NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>> = { channel in
                channel.eventLoop.makeCompletedFuture { try wrapSynchronously(channel) }
            }
            if let stunServer {
                // The Binding goes out on the very socket media will use (its mapping is the one
                // to announce), before NIO owns it: NIO's inbound stream has one reader.
                let descriptor = try DatagramDescriptor.bind(address)
                do {
                    reflexive = try await ReflexiveProbe.ask(stunServer, from: descriptor)
                } catch {
                    ReflexiveProbe.close(descriptor)
                    throw error
                }
                // NIO owns (and closes) the descriptor from here. The async `withBoundSocket`
                // fails when its initializer wraps the channel before registering it; the
                // channel is wrapped once registered instead.
                let registered = try await bootstrap.withBoundSocket(descriptor).get()
                do {
                    channel = try await registered.eventLoop.submit { try wrapSynchronously(registered) }.get()
                } catch {
                    registered.close(promise: nil)
                    throw error
                }
            } else {
                channel = try await bootstrap.bind(host: address.host, port: address.port, channelInitializer: wrap)
            }
        } catch let error as UDPError {
            throw error
        } catch {
            let code = (error as? IOError)?.errnoCode
            throw UDPError(code == EADDRINUSE ? .addressInUse : code == EADDRNOTAVAIL ? .notLocal : .bindFailed,
                           operation: "bind \(address)", detail: "\(error)")
        }
        let port = channel.channel.localAddress?.port ?? address.port
        let allocator = channel.channel.allocator
        return try await channel.executeThenClose { inbound, outbound in
            try await body(UDPSocket(localPort: port, reflexive: reflexive, outbound: outbound, inboundStream: inbound, allocator: allocator))
        }
    }
}
