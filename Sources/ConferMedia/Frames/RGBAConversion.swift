internal import CYUV

// libyuv names packed formats by a little-endian 32-bit word, so its "ABGR" is R, G, B, A
// in memory order. Everything public here says RGBA and means memory order; the BT.601
// limited-range matrix (libyuv's default) is used both ways.

extension VideoFrame {
    /// Converts the picture to 8-bit RGBA (bytes R, G, B, A per pixel, alpha 255) in
    /// `buffer`, whose rows are `stride` bytes apart.
    public func copyRGBA(into buffer: UnsafeMutableRawBufferPointer, stride: Int) throws(YUVError) {
        try RGBALayout.check(bufferCount: buffer.count, width: width, height: height, stride: stride,
                             function: "I420ToABGR")
        let code = withPlanes { y, u, v in
            I420ToABGR(y.base, Int32(y.stride), u.base, Int32(u.stride), v.base, Int32(v.stride),
                       buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(stride),
                       Int32(width), Int32(height))
        }
        if code != 0 { throw YUVError(.library, function: "I420ToABGR", code: code, "conversion to RGBA failed") }
    }
}

extension MutableVideoFrame {
    /// Replaces the picture with the 8-bit RGBA pixels (R, G, B, A in memory; alpha
    /// ignored) in `buffer`, a picture of this frame's size whose rows are `stride` bytes apart.
    public func copyRGBA(from buffer: UnsafeRawBufferPointer, stride: Int) throws(YUVError) {
        try RGBALayout.check(bufferCount: buffer.count, width: width, height: height, stride: stride,
                             function: "ABGRToI420")
        let dy = y, du = u, dv = v
        let code = ABGRToI420(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(stride),
                              dy.base, Int32(dy.stride), du.base, Int32(du.stride), dv.base, Int32(dv.stride),
                              Int32(width), Int32(height))
        if code != 0 { throw YUVError(.library, function: "ABGRToI420", code: code, "conversion from RGBA failed") }
    }
}

enum RGBALayout {
    /// Rejects a stride or buffer too small for a `width` × `height` RGBA picture before
    /// libyuv could read or write past its end.
    static func check(bufferCount: Int, width: Int, height: Int, stride: Int, function: String) throws(YUVError) {
        guard stride >= width * 4 else {
            throw YUVError(.invalidArgument, function: function,
                           "stride \(stride) is less than 4 × width \(width)")
        }
        let needed = stride * (height - 1) + width * 4
        guard bufferCount >= needed else {
            throw YUVError(.invalidArgument, function: function,
                           "RGBA buffer holds \(bufferCount) bytes; \(width)×\(height) at stride \(stride) needs \(needed)")
        }
    }
}
