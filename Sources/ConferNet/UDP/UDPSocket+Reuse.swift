import NIOCore
import Synchronization

/// Datagram buffers that a socket's reader and its consumer pass back and forth, so a
/// steady stream of datagrams allocates no byte arrays: the reader copies each datagram
/// into a buffer taken from here, the consumer gives it back once read.
///
/// Copying out of SwiftNIO's receive buffer is what lets NIO reuse that buffer for the
/// next read (a datagram that held on to it would make NIO allocate a fresh 64 KiB one).
public final class UDPBufferPool: Sendable {
    /// Most buffers kept for reuse; more given back are freed.
    public let capacity: Int
    private let free: Mutex<[[UInt8]]>

    /// A pool keeping up to `capacity` buffers.
    public init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
        var storage: [[UInt8]] = []
        storage.reserveCapacity(self.capacity)
        free = Mutex(storage)
    }

    /// Gives `buffer` back once its datagram has been read; the caller keeps no other copy.
    public func recycle(_ buffer: consuming [UInt8]) {
        let returned = buffer
        free.withLock { buffers in
            if buffers.count < capacity { buffers.append(returned) }
        }
    }

    /// Buffers waiting for reuse.
    public var available: Int { free.withLock { $0.count } }

    /// A buffer holding `bytes`: a recycled one when there is one. The one given back
    /// longest ago is taken, so its last reader has surely let go of it (a copy still held
    /// elsewhere would make writing into it allocate).
    func copy(_ bytes: ByteBufferView) -> [UInt8] {
        var buffer = free.withLock { $0.isEmpty ? nil : $0.removeFirst() } ?? []
        buffer.removeAll(keepingCapacity: true)
        // One MTU-sized reservation up front, so buffers rarely grow after their first use.
        if buffer.capacity < bytes.count { buffer.reserveCapacity(max(bytes.count, 1536)) }
        buffer.append(contentsOf: bytes)
        return buffer
    }
}

/// The last sender's address in both forms: formatting a `SocketAddress` as text allocates.
/// Behind a lock (never contended: one task iterates a sequence) so the sequence stays `Sendable`.
private final class SourceCache: Sendable {
    private let last = Mutex<(socket: SocketAddress, address: UDPAddress)?>(nil)

    func address(of socket: SocketAddress) -> UDPAddress {
        last.withLock { last in
            if let last, last.socket == socket { return last.address }
            let address = UDPAddress(host: socket.ipAddress ?? "?", port: socket.port ?? 0)
            last = (socket, address)
            return address
        }
    }
}

/// A destination resolved once, so sending to it often does no name or address parsing.
public struct UDPDestination: Sendable, Hashable {
    /// The destination with its host in numeric form, as received datagrams report their source.
    public let address: UDPAddress
    let socketAddress: SocketAddress
}

extension UDPSocket {
    /// Datagrams as they arrive, each copied into a buffer from `pool`. Give each datagram's
    /// ``UDPDatagram/bytes`` back with ``UDPBufferPool/recycle(_:)`` once read, and a steady
    /// stream allocates no buffers of its own.
    ///
    /// The sequence is for one task to iterate (it remembers the last sender, so a stream
    /// from one address does not format that address again for every datagram).
    public func datagrams(reusing pool: UDPBufferPool) -> some AsyncSequence<UDPDatagram, any Error> {
        let sources = SourceCache()
        return inboundStream.map { envelope in
            UDPDatagram(bytes: pool.copy(envelope.data.readableBytesView), source: sources.address(of: envelope.remoteAddress))
        }
    }

    /// Resolves `address` (a numeric address or a host name) once, for sending to it often.
    public static func resolve(_ address: UDPAddress) throws(UDPError) -> UDPDestination {
        let resolved: SocketAddress
        do { resolved = try SocketAddress.makeAddressResolvingHost(address.host, port: address.port) } catch {
            throw UDPError(.unresolvable, operation: "resolve \(address)", detail: "\(error)")
        }
        return UDPDestination(address: UDPAddress(host: resolved.ipAddress ?? address.host, port: resolved.port ?? address.port),
                              socketAddress: resolved)
    }

    /// Sends `bytes` to a destination resolved before.
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: UDPDestination) async throws {
        var buffer = allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        try await outbound.write(AddressedEnvelope(remoteAddress: destination.socketAddress, data: buffer))
    }

    /// Sends `count` datagrams, `datagram(0)` to `datagram(count - 1)`, to a destination
    /// resolved before, in one write: the channel is entered and flushed once for all of
    /// them (NIO hands them to the kernel together, with one `sendmmsg` where it can), not
    /// once each. `datagram` is called before this suspends, so the bytes it returns need
    /// to stay valid only for that call.
    public func send(_ count: Int, to destination: UDPDestination, _ datagram: (Int) -> UnsafeRawBufferPointer) async throws {
        guard count > 1 else {
            if count == 1 { try await send(datagram(0), to: destination) }
            return
        }
        var envelopes: [AddressedEnvelope<ByteBuffer>] = []
        envelopes.reserveCapacity(count)
        for index in 0 ..< count {
            let bytes = datagram(index)
            var buffer = allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            envelopes.append(AddressedEnvelope(remoteAddress: destination.socketAddress, data: buffer))
        }
        try await outbound.write(contentsOf: envelopes)
    }

    /// Sends `bytes` to a destination resolved before.
    public func send(_ bytes: [UInt8], to destination: UDPDestination) async throws {
        try await outbound.write(AddressedEnvelope(remoteAddress: destination.socketAddress, data: allocator.buffer(bytes: bytes)))
    }
}
