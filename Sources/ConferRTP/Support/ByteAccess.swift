// Big-endian loads and stores used by every parser and writer in this module.
//
// Callers check lengths before calling these; the loads themselves only carry the
// standard library's debug-build bounds checks, which is what makes parsing cheap in
// release builds without making it unsafe. The loads are @usableFromInline so the
// inlinable parsing path can be inlined into callers in other modules.

extension UnsafeRawBufferPointer {
    @usableFromInline @inline(__always)
    func u8(_ offset: Int) -> UInt8 { self[offset] }

    @usableFromInline @inline(__always)
    func u16(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @usableFromInline @inline(__always)
    func u24(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @usableFromInline @inline(__always)
    func u32(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @usableFromInline @inline(__always)
    func u64(_ offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes in `range` as a slice view (no copy).
    @usableFromInline @inline(__always)
    func sub(_ start: Int, _ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[start ..< start + count])
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func put8(_ value: UInt8, at offset: Int) { self[offset] = value }

    @inline(__always)
    func put16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inline(__always)
    func put24(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 2] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    func put32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always)
    func put64(_ value: UInt64, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }

    /// Copies `source` to `offset`; the caller has checked that it fits.
    @inline(__always)
    func putBytes(_ source: UnsafeRawBufferPointer, at offset: Int) {
        guard source.count > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: self[offset ..< offset + source.count]).copyMemory(from: source)
    }

    /// Copies `source` to `offset`; the caller has checked that it fits.
    @inline(__always)
    func putBytes(_ source: [UInt8], at offset: Int) {
        source.withUnsafeBytes { putBytes($0, at: offset) }
    }

    /// Zeroes `count` bytes from `offset`.
    @inline(__always)
    func zero(_ offset: Int, _ count: Int) {
        guard count > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: self[offset ..< offset + count]).initializeMemory(as: UInt8.self, repeating: 0)
    }
}

/// Runs `body` over the bytes of `array`, passing its typed error through (the standard
/// library's `withUnsafeBytes` only rethrows `any Error`).
@inline(__always)
func withBytes<R, Failure: Error>(
    _ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(Failure) -> R
) throws(Failure) -> R {
    let result: Result<R, Failure> = array.withUnsafeBytes { bytes in
        Result { () throws(Failure) -> R in try body(bytes) }
    }
    return try result.get()
}

/// Allocates an array of `size` bytes and lets `body` fill it through a buffer pointer,
/// passing its typed error through; `body` returns how many bytes it wrote.
@inline(__always)
func makeBytes<Failure: Error>(
    size: Int, _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
) throws(Failure) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: size)
    let result: Result<Int, Failure> = out.withUnsafeMutableBytes { buffer in
        Result { () throws(Failure) -> Int in try body(buffer) }
    }
    let written = try result.get()
    if written < size { out.removeLast(size - written) }
    return out
}
