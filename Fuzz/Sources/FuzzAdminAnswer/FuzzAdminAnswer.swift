import FuzzSupport
// libFuzzer target: the admin client's whole answer path. The first byte picks one of
// AdminClient's eight calls; the rest is what a server on loopback writes back to it, raw,
// before closing its side. Every call must end (no hang) with a value or an AdminError whose
// kind agrees with the status line it was given, and connections must not pile up.
import ConferClient
import ConferSession
import FuzzTraffic
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let answer = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    let (result, connection) = exchange(call: Int(data[0]) % 8, answer: answer)
    if connection >= 0 { close(connection) }

    // What the status line says, when it is one: the client's verdict must agree with it.
    // After an interim answer (1xx) the verdict is the next answer's, which is not checked.
    let status = statusCode(of: answer)
    let interim = status.map { (100 ..< 200).contains($0) && $0 != 101 } ?? false
    if interim, case .failure(let error) = result { require(error != .timedOut, "timed out after an interim answer") }
    if !interim { check(result, against: status) }
    AnswerServer.shared.checkDescriptors()
    return 0
}

/// Traps unless `result` is what an answer whose first status line says `status` may give.
private func check(_ result: Result<Void, AdminError>, against status: Int?) {
    switch result {
    case .success:
        require(status.map { (200 ..< 300).contains($0) } ?? false, "an answer of status \(status.map(String.init) ?? "none") was taken as success")
    case .failure(.unauthorized):
        require(status == 401, "unauthorized from status \(status.map(String.init) ?? "none")")
    case .failure(.adminDisabled):
        require(status == 403, "adminDisabled from status \(status.map(String.init) ?? "none")")
    case .failure(.rejected(let code, let message)):
        require(code == status && !(200 ..< 300).contains(code) && code != 401 && code != 403, "rejected(\(code)) from status \(status.map(String.init) ?? "none")")
        require(!message.isEmpty, "a rejection without words")
    case .failure(.unknownRoom), .failure(.unknownMember), .failure(.roomExists), .failure(.refused):
        require(status.map { !(200 ..< 300).contains($0) && $0 != 401 && $0 != 403 } ?? false,
                     "a room refusal from status \(status.map(String.init) ?? "none")")
    case .failure(.timedOut):
        fail("timed out, though the server closed its side at once")
    case .failure(.serverShutdown), .failure(.connectionLost), .failure(.invalidConfiguration):
        fail("a watch's or a configuration's error from a request")
    case .failure(.unreachable), .failure(.unexpectedResponse):
        break
    }
}

/// Makes AdminClient call `call` while the server writes `answer`; its result, and the
/// server's side of the connection (-1 if the client never connected).
private func exchange(call: Int, answer: [UInt8]) -> (Result<Void, AdminError>, Int32) {
    var client = try! AdminClient(server: "http://127.0.0.1:\(AnswerServer.shared.port)", adminToken: "fuzz")
    client.timeout = .seconds(5)
    let outcome = TaskResult { [client] () async -> Result<Void, AdminError> in
        do throws(AdminError) {
            switch call {
            case 0: _ = try await client.rooms()
            case 1: _ = try await client.room("r")
            case 2: _ = try await client.createRoom("r", name: "R", memberLimit: 4)
            case 3: try await client.closeRoom("r")
            case 4: try await client.send("hello", to: ["p1"], in: "r")
            case 5: try await client.kick("p1", from: "r")
            case 6: try await client.setRole(of: "p1", to: .host, in: "r")
            default: try await client.setForward(RoomForward(video: "127.0.0.1:5004", audio: "127.0.0.1:5006"), in: "r")
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }
    let connection = AnswerServer.shared.answer(with: answer)
    return (outcome.wait("an admin call, after the server closed its side,"), connection)
}

/// The status code of an HTTP/1.x status line at the start of `answer` (after any empty
/// lines, which HTTP parsers skip), if it starts with one.
private func statusCode(of answer: [UInt8]) -> Int? {
    let line = Array(answer.drop { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") })
    let isDigit = { (byte: UInt8) in (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte) }
    guard line.count >= 12, line.starts(with: Array("HTTP/".utf8)), isDigit(line[5]), line[6] == UInt8(ascii: "."),
          isDigit(line[7]), line[8] == UInt8(ascii: " ") else { return nil }
    let digits = line[9 ..< 12]
    guard digits.allSatisfy(isDigit) else { return nil }
    return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
}

/// A listening socket on loopback for the whole run, answering one request at a time.
final class AnswerServer: Sendable {
    static let shared = AnswerServer()

    let port: Int
    private let listener: Int32
    private let descriptors = Mutex((baseline: -1, runs: 0))

    private init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        require(listener >= 0, "no socket")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        require(bound, "cannot listen on 127.0.0.1")
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Takes the next connection, reads its whole request (head and `Content-Length` body),
    /// writes `answer` and closes the writing side. The connection, or -1 if none came.
    func answer(with answer: [UInt8]) -> Int32 {
        guard wait(for: listener, milliseconds: 10_000) else { return -1 }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return -1 }
        // Reading the whole request first means closing sends FIN, not a reset that could
        // throw away the answer before the client reads it.
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !isWhole(request), wait(for: connection, milliseconds: 10_000) {
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            request += chunk.prefix(count)
        }
        var sent = 0
        while sent < answer.count {
            let count = answer[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
        shutdown(connection, Int32(SHUT_WR))
        return connection
    }

    /// Every 256 runs: descriptors open now may not exceed the first count by more than a few
    /// (a closed client's socket goes on NIO's event loop, a moment after the call ends).
    func checkDescriptors() {
        descriptors.withLock { state in
            state.runs += 1
            guard state.runs % 256 == 1 else { return }
            let open = Self.openDescriptors()
            if state.baseline < 0 { state.baseline = open }
            require(open <= state.baseline + 16, "\(open - state.baseline) descriptors more than at the start: connections leak")
        }
    }

    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count
    }

    private func wait(for descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }

    /// Whether `request` holds a whole head and as much body as its `Content-Length` says.
    private func isWhole(_ request: [UInt8]) -> Bool {
        let end = Array("\r\n\r\n".utf8)
        guard let headEnd = request.indices.first(where: { request[$0...].starts(with: end) }) else { return false }
        let head = String(decoding: request[..<headEnd], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).drop { $0 == " " }) } ?? 0
        return request.count >= headEnd + 4 + length
    }
}

@_cdecl("FuzzAdminAnswer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
