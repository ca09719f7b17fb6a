public import ConferMedia

extension VideoCompositor {
    /// Draws slot `index` (in drawing order, `0..<slotCount`) of the composition begun by
    /// ``beginComposition(at:)`` onto `canvas`.
    ///
    /// Writes only inside the slot's rectangle and reads no state that changes during a
    /// composition, so slots that do not overlap can be drawn concurrently (see the type's
    /// documentation).
    @discardableResult
    public func drawSlot(_ index: Int, on canvas: borrowing MutableVideoFrame) -> SlotOutcome {
        let plan = plans[index]
        let outcome: SlotOutcome
        // A slot too small for the canvas (under two pixels) rounds to nothing.
        if plan.rect.isEmpty { return .background }
        if plan.participant == nil {
            canvas.fill(plan.rect, with: configuration.backgroundColor)
            outcome = .background
        } else if let frame = plan.content {
            outcome = draw(frame, in: plan.rect, mode: plan.mode, on: canvas)
        } else {
            canvas.fill(plan.rect, with: configuration.placeholderColor)
            outcome = .placeholder
        }
        if plan.highlighted { drawBorder(around: plan.rect, on: canvas) }
        return outcome
    }

    private func draw(_ frame: VideoFrame, in slot: PixelRect, mode: FitFill.Mode,
                      on canvas: borrowing MutableVideoFrame) -> SlotOutcome {
        let placement = FitFill.rects(sourceWidth: frame.width, sourceHeight: frame.height, target: slot, mode: mode)
        let target = placement.destination
        paintBars(around: target, in: slot, on: canvas)
        if placement.source == PixelRect(width: frame.width, height: frame.height),
           target.width == frame.width, target.height == frame.height {
            copy(frame, to: target, on: canvas)
            return .copied
        }
        do {
            try scaler.scale(frame, from: placement.source, into: canvas, at: target)
            return .scaled
        } catch {
            canvas.fill(slot, with: configuration.placeholderColor)
            return .failed
        }
    }

    /// Paints the letterbox bars: the parts of `slot` outside the centred `picture`.
    private func paintBars(around picture: PixelRect, in slot: PixelRect, on canvas: borrowing MutableVideoFrame) {
        guard picture != slot else { return }
        let color = configuration.backgroundColor
        canvas.fill(PixelRect(x: slot.x, y: slot.y, width: slot.width, height: picture.y - slot.y), with: color)
        canvas.fill(PixelRect(x: slot.x, y: picture.maxY, width: slot.width, height: slot.maxY - picture.maxY),
                    with: color)
        canvas.fill(PixelRect(x: slot.x, y: picture.y, width: picture.x - slot.x, height: picture.height), with: color)
        canvas.fill(PixelRect(x: picture.maxX, y: picture.y, width: slot.maxX - picture.maxX, height: picture.height),
                    with: color)
    }

    /// Copies `frame` (of `target`'s size); `target` starts on an even pixel. Through
    /// `copyPixels(from:atX:y:)` (libyuv's CopyPlane) rather than a `memcpy` per row: with
    /// pictures fresh from memory that halves a 2×2 grid's cost (see its documentation).
    private func copy(_ frame: VideoFrame, to target: PixelRect, on canvas: borrowing MutableVideoFrame) {
        canvas.copyPixels(from: frame, atX: target.x, y: target.y)
    }

    /// The speaker's border, inside the slot so it never spills into a neighbour.
    private func drawBorder(around slot: PixelRect, on canvas: borrowing MutableVideoFrame) {
        let width = min(configuration.highlightWidth & ~1, slot.width / 2, slot.height / 2)
        guard width > 0 else { return }
        let color = configuration.highlightColor
        canvas.fill(PixelRect(x: slot.x, y: slot.y, width: slot.width, height: width), with: color)
        canvas.fill(PixelRect(x: slot.x, y: slot.maxY - width, width: slot.width, height: width), with: color)
        canvas.fill(PixelRect(x: slot.x, y: slot.y + width, width: width, height: slot.height - 2 * width), with: color)
        canvas.fill(PixelRect(x: slot.maxX - width, y: slot.y + width, width: width, height: slot.height - 2 * width),
                    with: color)
    }
}
