extension MutableVideoFrame {
    /// Paints `rect` (clipped to the picture) with `color`.
    ///
    /// Chroma covers 2×2 luma pixels, so a rectangle with an odd edge paints the chroma
    /// sample it half covers; synthetic sources keep their rectangles even to avoid that.
    public func fill(_ rect: PixelRect, with color: YUVColor) {
        let r = rect.intersection(PixelRect(width: width, height: height))
        guard !r.isEmpty else { return }
        let luma = y
        for row in r.y..<r.maxY {
            (luma.base + row * luma.stride + r.x).update(repeating: color.y, count: r.width)
        }
        let cx = r.x / 2, cy = r.y / 2
        let cw = (r.maxX + 1) / 2 - cx, ch = (r.maxY + 1) / 2 - cy
        let cb = u, cr = v
        for row in cy..<(cy + ch) {
            (cb.base + row * cb.stride + cx).update(repeating: color.u, count: cw)
            (cr.base + row * cr.stride + cx).update(repeating: color.v, count: cw)
        }
    }

    /// Paints the whole picture with `color`.
    public func fill(with color: YUVColor) { fill(y: color.y, u: color.u, v: color.v) }
}
