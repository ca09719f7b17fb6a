#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP/1.1 request and its response, on a connection of its own.
///
/// The admin API is a handful of small requests by a person or a script, so a connection
/// per request costs nothing worth a pool. NIO rather than URLSession because on Linux
/// URLSession cannot trust a certificate the caller names (a self-signed server's), and
/// NIO is what the rest of the client already runs on.
struct HTTPExchange: Sendable {
    /// The answer: status and body.
    struct Response: Sendable {
        /// The HTTP status code.
        var status: Int
        /// The body, whole.
        var body: [UInt8]
    }

    /// Why no response came.
    enum Failure: Error, Sendable {
        /// Connecting, the TLS handshake or the exchange failed (the detail says which).
        case unreachable(String)
        /// No complete response within the timeout.
        case timedOut
        /// The body was longer than ``maximumBodyBytes``.
        case tooLarge
    }

    /// The host to connect to.
    var host: String
    /// Its port.
    var port: Int
    /// TLS settings for `https`, nil for plain HTTP.
    var tls: TLSConfiguration?
    /// The name sent in SNI and checked in the certificate (nil: `host`, unless it is an address).
    var serverName: String?
    /// A path prefix of the server's base URL ("" for none).
    var basePath: String

    /// A body longer than this is refused rather than held: an admin answer is a few KB.
    static let maximumBodyBytes = 16 << 20

    /// Sends `method` to `path` (below ``basePath``) with `headers` and `body`, and reads
    /// the whole response, giving up after `timeout`.
    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)], body: [UInt8]?,
              timeout: Duration) async throws(Failure) -> Response {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Self.milliseconds(timeout)))
                .connect(host: host, port: port) { [tls, serverName] channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            let context = try NIOSSLContext(configuration: tls)
                            try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw .unreachable("cannot connect to \(host):\(port) (\(Self.reason(error)))")
        }
        // A server that accepts and then says nothing is cut at the deadline; the read below
        // then ends without a whole response.
        let expired = Expiry()
        let deadline = channel.channel.eventLoop.scheduleTask(in: .milliseconds(Self.milliseconds(timeout))) {
            expired.flag.withLock { $0 = true }
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: basePath + path)
        head.headers.add(name: "Host", value: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: "\(body.count)") }
        let result: Result<Response, Failure>
        do {
            result = try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(.head(head))
                if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))
                var status: Int?
                var received: [UInt8] = []
                for try await part in inbound {
                    switch part {
                    case .head(let response): status = Int(response.status.code)
                    case .body(let buffer):
                        guard received.count + buffer.readableBytes <= Self.maximumBodyBytes else { return .failure(.tooLarge) }
                        received += buffer.readableBytesView
                    case .end:
                        guard let status else { return .failure(.unreachable("the server's answer had no status line")) }
                        return .success(Response(status: status, body: received))
                    }
                }
                return .failure(expired.flag.withLock { $0 } ? .timedOut : .unreachable("the server closed the connection before the whole answer"))
            }
        } catch {
            if expired.flag.withLock({ $0 }) { throw .timedOut }
            throw .unreachable("the exchange with \(host):\(port) failed (\(Self.reason(error)))")
        }
        return try result.get()
    }

    /// Whether the deadline cut the connection.
    private final class Expiry: Sendable {
        let flag = Mutex(false)
    }

    /// What went wrong, in the system's words where there are some ("Connection refused").
    private static func reason(_ error: any Error) -> String {
        if let failure = error as? NIOConnectionError, let first = failure.connectionErrors.first { return reason(first.error) }
        if let failure = error as? IOError { return String(cString: strerror(failure.errnoCode)) }
        return "\(error)"
    }

    /// `duration` in whole milliseconds, at least one.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
