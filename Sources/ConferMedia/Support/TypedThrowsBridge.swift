// `Array.withUnsafeBytes` and friends are `rethrows`, which erases a typed error to
// `any Error`. These wrappers carry `MediaFileError` through them via `Result` so parsers
// keep `throws(MediaFileError)` end to end without casts.

extension Array {
    /// `withUnsafeBytes` that passes the body's `MediaFileError` through unchanged.
    @inlinable
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(MediaFileError) -> R) throws(MediaFileError) -> R {
        try withUnsafeBytes { raw in Result { () throws(MediaFileError) -> R in try body(raw) } }.get()
    }

    /// `withUnsafeMutableBytes` that passes the body's `MediaFileError` through unchanged.
    @inlinable
    package mutating func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws(MediaFileError) -> R) throws(MediaFileError) -> R {
        try withUnsafeMutableBytes { raw in Result { () throws(MediaFileError) -> R in try body(raw) } }.get()
    }
}
