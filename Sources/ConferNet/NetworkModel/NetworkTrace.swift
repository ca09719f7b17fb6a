public import ConferMedia

/// Per-packet delays and losses that drive a ``NetworkLink`` instead of its random model,
/// so a path measured once (or written by hand) can be replayed exactly.
///
/// ## File format
/// UTF-8 text, one entry per packet, applied to packets in the order they are sent:
/// ```
/// # comments start with '#'; blank lines are ignored
/// 20        one-way delay of this packet in milliseconds
/// 20.125    decimals allowed; digits beyond the microsecond are dropped
/// loss      this packet is lost (case-insensitive)
/// ```
/// Delays are 0 … 60 000 ms. While a trace drives the link it replaces the delay, jitter
/// and random/burst loss of the ``NetworkConditions``; the bandwidth cap, reordering,
/// duplication and the FIFO rule still apply. After the last entry the trace starts again
/// (``Ending/loop``) or hands over to the conditions' random model (``Ending/model``).
public struct NetworkTrace: Sendable, Equatable {
    /// What happens to one packet.
    public enum Entry: Sendable, Equatable {
        /// Delivered after this one-way delay.
        case delay(TimeDelta)
        /// Lost.
        case loss
    }

    /// What happens to packets after the last entry.
    public enum Ending: String, Sendable, Codable, CaseIterable {
        /// Start again from the first entry.
        case loop
        /// Use the link's ``NetworkConditions`` from then on.
        case model
    }

    /// The entries, in packet order.
    public var entries: [Entry]
    /// What happens after the last entry.
    public var ending: Ending

    /// The longest delay a trace may give.
    public static let maximumDelay = TimeDelta.seconds(60)
    /// The most entries a trace may have (16 MiB of memory).
    public static let maximumEntries = 1 << 20
    /// The largest trace file read.
    public static let maximumFileBytes = 64 << 20

    /// A trace of `entries` (which should not be empty; an empty trace changes nothing).
    public init(entries: [Entry], ending: Ending = .loop) {
        self.entries = entries
        self.ending = ending
    }

    /// Parses trace text (see the format above).
    public init(parsing text: String, ending: Ending = .loop) throws(NetworkTraceError) {
        try self.init(bytes: Array(text.utf8), ending: ending)
    }

    /// Parses trace bytes (see the format above).
    public init(bytes: some Collection<UInt8>, ending: Ending = .loop) throws(NetworkTraceError) {
        self.init(entries: try NetworkTraceParser.parse(Array(bytes)), ending: ending)
    }

    /// Reads and parses the trace file at `path`.
    public init(contentsOfFile path: String, ending: Ending = .loop) throws(NetworkTraceError) {
        var bytes: [UInt8] = []
        do {
            let source = try FileByteSource(path: path)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = try chunk.withUnsafeMutableBytes { buffer throws(MediaFileError) in try source.read(into: buffer) }
                if n == 0 { break }
                bytes += chunk[..<n]
                if bytes.count > NetworkTrace.maximumFileBytes {
                    throw NetworkTraceError(.tooLarge, "\(path) is larger than \(NetworkTrace.maximumFileBytes >> 20) MiB")
                }
            }
        } catch let error as NetworkTraceError {
            throw error
        } catch {
            throw NetworkTraceError(.io, "\(error)")
        }
        try self.init(bytes: bytes, ending: ending)
    }
}
