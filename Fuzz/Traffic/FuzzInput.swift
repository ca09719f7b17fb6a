/// Reads a fuzz input front to back; every read past the end yields nil, so a target
/// simply stops where the input does.
public struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0

    /// A reader over libFuzzer's `size` bytes at `data`.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: size)
    }

    /// The next byte.
    public mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A big-endian 16-bit length.
    public mutating func length() -> Int? {
        guard let high = byte(), let low = byte() else { return nil }
        return Int(high) << 8 | Int(low)
    }

    /// A big-endian 64-bit integer; bytes past the end read as zero, so a short input still
    /// says a number.
    public mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0 ..< 8 { value = value << 8 | UInt64(byte() ?? 0) }
        return Int64(bitPattern: value)
    }

    /// Up to `count` bytes: fewer when the input ends first.
    public mutating func bytes(upTo count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return Array(bytes[offset ..< end])
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Whether to print what each input reached (`FUZZ_VERBOSE=1`), to check by hand that
/// crafted inputs get as deep as intended.
public let fuzzVerbose = getenv("FUZZ_VERBOSE") != nil

/// Stops the fuzzer with `message` unless `condition` holds: `precondition`, but with the
/// message kept under -O (Fuzz/run optimizes, and `precondition` then prints none).
public func require(_ condition: Bool, _ message: @autoclosure () -> String = "", file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError(message(), file: file, line: line) }
}

/// Stops the fuzzer with `message`, kept under -O.
public func fail(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError(message, file: file, line: line)
}
