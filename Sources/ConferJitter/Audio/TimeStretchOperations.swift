extension AudioJitterBufferSampleQueue {
    /// Whether `frames` more frames fit without giving up the history a period search needs.
    func canGrow(by frames: Int) -> Bool { count + frames + historyLimit <= capacity }

    /// Accelerate: replaces the first `2 × period` unplayed frames x with `period` frames
    /// that fade from x[0..<T] into x[T..<2T].
    ///
    /// The output starts as x[0] (continuing what was played) and ends as x[2T − 1], which
    /// x[2T] follows: both joins are the signal's own, and in between two segments one
    /// period apart are mixed, so nothing jumps.
    mutating func removePeriod(_ period: Int) {
        guard period > 0, 2 * period <= count else { return }
        let x = frames(from: 0, count: 2 * period)
        Self.crossfade(into: x, from: UnsafeBufferPointer(x), fromOffset: 0, to: UnsafeBufferPointer(x),
                       toOffset: period * channels, frames: period, channels: channels)
        remove(from: period, frames: period)
    }

    /// Preemptive expand: inserts `period` frames in front of the unplayed ones x that
    /// fade from x[0..<T] into h, the last T frames played.
    ///
    /// The inserted audio starts as x[0] (which followed h[T − 1] already) and ends as
    /// h[T − 1], which x[0] follows: one period is played twice with no join audible.
    /// Needs `period` frames of played history.
    mutating func insertPeriod(_ period: Int) {
        guard period > 0, history >= period, period <= count, canGrow(by: period) else { return }
        let inserted = insertAtFront(frames: period)
        guard inserted.count == period * channels, history >= period else { return }
        let played = frames(from: -period, count: period)
        let upcoming = frames(from: period, count: period)
        Self.crossfade(into: inserted, from: UnsafeBufferPointer(upcoming), fromOffset: 0, to: UnsafeBufferPointer(played),
                       toOffset: 0, frames: period, channels: channels)
    }

    /// out[i] = (1 − w)·from[i] + w·to[i], w rising linearly from 1/(n+1) to n/(n+1).
    private static func crossfade(into output: UnsafeMutableBufferPointer<Int16>, from: UnsafeBufferPointer<Int16>,
                                  fromOffset: Int, to: UnsafeBufferPointer<Int16>, toOffset: Int,
                                  frames: Int, channels: Int) {
        let step = 1 / Float(frames + 1)
        for frame in 0..<frames {
            let weight = Float(frame + 1) * step
            for channel in 0..<channels {
                let index = frame * channels + channel
                let mixed = (1 - weight) * Float(from[fromOffset + index]) + weight * Float(to[toOffset + index])
                output[index] = Int16(clamping: Int(mixed.rounded()))
            }
        }
    }
}
