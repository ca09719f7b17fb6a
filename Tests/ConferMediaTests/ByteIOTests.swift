import Testing
@testable import ConferMedia

@Suite struct ByteIOTests {
    static func exercise(_ source: any ByteSource) throws {
        #expect(source.length == 10 && source.remaining == 10)
        #expect(try source.readLittleEndian(UInt16.self, format: "T", what: "x") == 0x0100)
        #expect(try source.skip(3) == 3)
        var buffer = [UInt8](repeating: 0, count: 8)
        let n = try buffer.withUnsafeMutableBytes { try source.readUpTo($0) }
        #expect(n == 5 && Array(buffer.prefix(5)) == [5, 6, 7, 8, 9])
        #expect(source.position == 10 && source.remaining == 0)
        #expect(try source.skip(5) == 0)
        let error = Support.expectError(.truncated) { _ = try source.readLittleEndian(UInt32.self, format: "T", what: "a field") }
        #expect(error?.format == "T" && error?.offset == 10 && error?.detail.contains("a field") == true)
    }

    @Test func memoryAndFileSourcesBehaveAlike() throws {
        let bytes: [UInt8] = Array(0..<10)
        try Self.exercise(MemoryByteSource(bytes))
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        try Support.write(bytes, to: dir + "/ten")
        try Self.exercise(FileByteSource(path: dir + "/ten"))
        Support.expectError(.io) { _ = try FileByteSource(path: dir + "/missing") }
    }

    /// A device has no length; skipping falls back to reading.
    @Test func unseekableSourceSkipsByReading() throws {
        let zero = try FileByteSource(path: "/dev/zero")
        #expect(zero.length == nil && zero.remaining == nil)
        #expect(try zero.skip(10_000) == 10_000)
        #expect(zero.position == 10_000)
        #expect(try zero.readLittleEndian(UInt64.self, format: "T", what: "x") == 0)
    }

    @Test func sinksPatchHeadersInPlace() throws {
        let memory = MemoryByteSink()
        try memory.write([1, 2, 3, 4, 5])
        try memory.seek(to: 1)
        try memory.writeLittleEndian(UInt16(0xBBAA))
        #expect(memory.bytes == [1, 0xAA, 0xBB, 4, 5] && memory.position == 3)
        try memory.write([9, 9, 9, 9])
        #expect(memory.bytes == [1, 0xAA, 0xBB, 9, 9, 9, 9])
        Support.expectError(.io) { try memory.seek(to: 8) }

        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let file = try FileByteSink(path: dir + "/out")
        try file.writeASCII("RIFF----WAVE")
        try file.seek(to: 4)
        try file.writeLittleEndian(UInt32(0x1234_5678))
        try file.seek(to: 12)
        try file.write([0xFF])
        try file.close()
        #expect(try Support.bytes(dir + "/out") == Array("RIFF".utf8) + [0x78, 0x56, 0x34, 0x12] + Array("WAVE".utf8) + [0xFF])
        Support.expectError(.io) { try file.write([1]) }
        Support.expectError(.io) { _ = try FileByteSink(path: dir + "/no/such/dir/file") }
    }

    @Test func rescaleClampsInsteadOfOverflowing() {
        #expect(MediaMath.rescale(29, 1_000_000, 30) == 966_666)
        #expect(MediaMath.rescale(.max, 1_000_000, 1) == .max)
        #expect(MediaMath.rescale(.min, 1_000_000, 1) == .min)
        #expect(MediaMath.rescale(1 << 62, 4, 8) == 1 << 61)
    }
}
