#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP/1.1 requests to one server over a connection kept open between them (opened again
/// when the server has closed it), one request at a time.
///
/// NIO rather than URLSession because on Linux URLSession cannot trust a certificate the
/// caller names (a self-signed server's), and NIO is what the rest of the client runs on.
actor HTTPConnection {
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
        /// The connection closed before any of the answer came.
        case closedBeforeAnswer
    }

    /// Where to connect and how.
    struct Endpoint: Sendable {
        /// The host to connect to.
        var host: String
        /// Its port.
        var port: Int
        /// TLS settings for `https`, nil for plain HTTP.
        var tls: TLSConfiguration?
        /// The name sent in SNI and checked in the certificate (nil: none, for an address).
        var serverName: String?
        /// A path prefix of the server's base URL ("" for none).
        var basePath: String
    }

    /// A body longer than this is refused rather than held: an admin answer is a few KB.
    static let maximumBodyBytes = 16 << 20

    private let endpoint: Endpoint
    /// Made once: building a TLS context reads the trusted certificates.
    private var tlsContext: NIOSSLContext?
    private var link: Link?

    init(_ endpoint: Endpoint) {
        self.endpoint = endpoint
    }

    deinit { link?.close() }

    /// Sends `method` to `path` (below the base path) with `headers` and `body`, and reads the
    /// whole response, giving up after `timeout`. A kept connection the server has closed
    /// meanwhile is replaced once, before anything of the answer has come.
    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)], body: [UInt8]?,
              timeout: Duration) async throws(Failure) -> Response {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: endpoint.basePath + path)
        head.headers.add(name: "Host", value: endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: "\(body.count)") }
        let request = Request(head: head, body: body, timeout: timeout)
        for attempt in 0 ..< 2 {
            let current: Link
            if let link, !link.isClosed { current = link } else {
                current = try await connect(timeout: timeout)
                link = current
            }
            let reused = current.served > 0
            let result = await current.perform(request)
            if case .success(let response) = result, !current.isClosed { return response }
            link = nil
            current.close()
            switch result {
            case .success(let response): return response
            case .failure(.closedBeforeAnswer) where reused && attempt == 0: continue
            case .failure(.closedBeforeAnswer): throw .unreachable("the server closed the connection before answering")
            case .failure(let failure): throw failure
            }
        }
        throw .unreachable("the server closed the connection before answering")
    }

    private func connect(timeout: Duration) async throws(Failure) -> Link {
        let context: NIOSSLContext?
        if let tls = endpoint.tls {
            if let tlsContext { context = tlsContext } else {
                do { context = try NIOSSLContext(configuration: tls) } catch { throw .unreachable("the TLS settings cannot be used (\(error))") }
                tlsContext = context
            }
        } else {
            context = nil
        }
        let serverName = endpoint.serverName
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Self.milliseconds(timeout)))
                .connect(host: endpoint.host, port: endpoint.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let context {
                            try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
            return Link(channel)
        } catch {
            throw .unreachable("cannot connect to \(endpoint.host):\(endpoint.port) (\(Self.reason(error)))")
        }
    }

    /// One request to send.
    struct Request: Sendable {
        var head: HTTPRequestHead
        var body: [UInt8]?
        var timeout: Duration
    }

    /// One open connection and the task that owns it, which answers requests in turn.
    final class Link: Sendable {
        private struct Job: Sendable {
            var request: Request
            var answer: CheckedContinuation<Result<Response, Failure>, Never>
        }

        private let jobs: AsyncStream<Job>.Continuation
        private let state = LinkState()
        private let channel: any Channel

        init(_ channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>) {
            let (stream, jobs) = AsyncStream<Job>.makeStream()
            self.jobs = jobs
            self.channel = channel.channel
            Task { [state] in
                do {
                    try await channel.executeThenClose { inbound, outbound in
                        var responses = inbound.makeAsyncIterator()
                        for await job in stream {
                            let result = await Self.exchange(job.request, channel: channel.channel, responses: &responses, outbound: outbound)
                            var keep = true
                            if case .success = result {
                                state.withLock { $0.served += 1 }
                            } else {
                                keep = false
                            }
                            if keep, case .success(let answer) = result, answer.closes { keep = false }
                            if !keep { state.withLock { $0.closed = true } }
                            job.answer.resume(returning: result.map { $0.response })
                            if !keep { return }
                        }
                    }
                } catch {}
                state.withLock { $0.closed = true }
                jobs.finish()
                // Requests that came after the connection failed or closed get told so.
                for await job in stream { job.answer.resume(returning: .failure(.closedBeforeAnswer)) }
            }
        }

        /// Whether the connection can take no more requests.
        var isClosed: Bool { state.withLock { $0.closed } }
        /// Requests answered on it so far.
        var served: Int { state.withLock { $0.served } }

        /// Sends `request` once those before it are answered; its answer or why there is none.
        func perform(_ request: Request) async -> Result<Response, Failure> {
            await withCheckedContinuation { answer in
                if case .terminated = jobs.yield(Job(request: request, answer: answer)) { answer.resume(returning: .failure(.closedBeforeAnswer)) }
            }
        }

        /// Closes the connection once the requests queued are done.
        func close() {
            state.withLock { $0.closed = true }
            jobs.finish()
        }

        /// Writes `request` and reads its answer. A server that says nothing is cut at the
        /// deadline, which ends the read.
        private static func exchange(_ request: Request, channel: any Channel,
                                     responses: inout NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator,
                                     outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>) async -> Result<(response: Response, closes: Bool), Failure> {
            let expired = Expiry()
            let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(HTTPConnection.milliseconds(request.timeout))) {
                expired.flag.withLock { $0 = true }
                channel.close(promise: nil)
            }
            defer { deadline.cancel() }
            var status: Int?
            var closes = false
            var received: [UInt8] = []
            do {
                try await outbound.write(.head(request.head))
                if let body = request.body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))
                while let part = try await responses.next() {
                    switch part {
                    case .head(let head):
                        status = Int(head.status.code)
                        closes = !head.isKeepAlive
                    case .body(let buffer):
                        guard received.count + buffer.readableBytes <= HTTPConnection.maximumBodyBytes else { return .failure(.tooLarge) }
                        received += buffer.readableBytesView
                    case .end:
                        guard let status else { return .failure(.unreachable("the server's answer had no status line")) }
                        return .success((Response(status: status, body: received), closes))
                    }
                }
            } catch {
                if expired.flag.withLock({ $0 }) { return .failure(.timedOut) }
                if status == nil { return .failure(.closedBeforeAnswer) }
                return .failure(.unreachable("the exchange with the server failed (\(HTTPConnection.reason(error)))"))
            }
            if expired.flag.withLock({ $0 }) { return .failure(.timedOut) }
            return .failure(status == nil ? .closedBeforeAnswer : .unreachable("the server closed the connection in the middle of its answer"))
        }
    }

    /// Whether a connection is closed, and how many answers it gave.
    private final class LinkState: Sendable {
        private let value = Mutex((closed: false, served: 0))
        func withLock<T>(_ body: (inout (closed: Bool, served: Int)) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// Whether the deadline cut the connection.
    private final class Expiry: Sendable {
        let flag = Mutex(false)
    }

    /// What went wrong, in the system's words where there are some ("Connection refused").
    static func reason(_ error: any Error) -> String {
        if let failure = error as? NIOConnectionError, let first = failure.connectionErrors.first { return reason(first.error) }
        if let failure = error as? IOError { return String(cString: strerror(failure.errnoCode)) }
        return "\(error)"
    }

    /// `duration` in whole milliseconds, at least one.
    static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
