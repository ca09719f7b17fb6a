// Custom layouts as JSON:
//
//   {"slots": [{"x": 0, "y": 0, "width": 0.5, "height": 1, "z": 0, "mode": "fit", "participant": 7}, …]}
//
// x, y, width and height are required fractions of the canvas; z (default 0), mode ("fit"
// or "fill", default "fit") and participant (a number; default: the next member not named
// by another slot) are optional. Unknown keys are ignored so newer descriptions still load.
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ConferMedia

extension VideoLayout: Codable {
    /// The longest JSON description accepted: far more than 100 slots need, small enough
    /// that hostile input cannot make the decoder allocate without bound.
    public static let maximumJSONByteCount = 64 * 1024

    /// A layout decoded from a JSON description (see the schema at the top of this file) and
    /// checked as ``init(slots:)`` checks.
    ///
    /// Every failure is a ``LayoutError`` naming the slot index and field at fault.
    public init(json: Data) throws(LayoutError) {
        guard json.count <= Self.maximumJSONByteCount else {
            throw LayoutError(.tooLarge, "\(json.count) bytes; at most \(Self.maximumJSONByteCount) are accepted")
        }
        do {
            self = try JSONDecoder().decode(VideoLayout.self, from: json)
        } catch let error as LayoutError {
            throw error
        } catch let error as DecodingError {
            throw LayoutError(decoding: error)
        } catch {
            throw LayoutError(.malformedJSON, "\(error)")
        }
    }

    /// A layout decoded from JSON text (see ``init(json:)-(Data)``).
    public init(json: String) throws(LayoutError) {
        try self.init(json: Data(json.utf8))
    }

    /// The layout as JSON text in the schema ``init(json:)-(Data)`` reads, keys sorted.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain numbers, strings and arrays cannot fail.
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private enum Keys: String, CodingKey { case slots }

    /// Decodes `{"slots": […]}` and checks it; a bad value throws ``LayoutError``.
    public init(from decoder: any Decoder) throws {
        let slots = try decoder.container(keyedBy: Keys.self).decode([Slot].self, forKey: .slots)
        try self.init(slots: slots)
    }

    /// Encodes `{"slots": […]}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(slots, forKey: .slots)
    }
}

extension VideoLayout.Slot: Codable {
    private enum Keys: String, CodingKey { case x, y, width, height, z, mode, participant }

    /// Decodes one slot of the JSON schema; range checks happen in the layout, which knows
    /// the slot's index.
    ///
    /// Whole numbers (`z`, `participant`) are read as `Double` and converted here: Foundation's
    /// JSONDecoder reports a number that does not fit an integer type (0.5, -1) as invalid
    /// JSON with no coding path, which would lose the slot and field.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        var participant: ParticipantID?
        if let number = try c.decodeIfPresent(Double.self, forKey: .participant) {
            participant = ParticipantID(UInt32(try Self.whole(number, in: 0...Double(UInt32.max), forKey: .participant, of: c)))
        }
        let z = try c.decodeIfPresent(Double.self, forKey: .z).map {
            Int(try Self.whole($0, in: Double(Int32.min)...Double(Int32.max), forKey: .z, of: c))
        }
        self.init(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y),
                  width: try c.decode(Double.self, forKey: .width), height: try c.decode(Double.self, forKey: .height),
                  z: z ?? 0,
                  mode: try c.decodeIfPresent(FitFill.Mode.self, forKey: .mode) ?? .fit,
                  participant: participant)
    }

    private static func whole(_ number: Double, in range: ClosedRange<Double>, forKey key: Keys,
                              of container: KeyedDecodingContainer<Keys>) throws -> Int64 {
        guard number.rounded() == number, range.contains(number) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "\(number) is not a whole number in \(Int64(range.lowerBound))...\(Int64(range.upperBound))")
        }
        return Int64(number)
    }

    /// Encodes one slot of the JSON schema, omitting an unbound participant.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(x, forKey: .x)
        try c.encode(y, forKey: .y)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(z, forKey: .z)
        try c.encode(mode, forKey: .mode)
        try c.encodeIfPresent(participant, forKey: .participant)
    }
}

extension LayoutError {
    /// The decoder's error restated with the slot index and field taken from its coding path.
    init(decoding error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            let (slot, field) = Self.place(context.codingPath + [key])
            self.init(.missingField, slot: slot, field: field, "required field \"\(key.stringValue)\" is missing")
        case .typeMismatch(let type, let context):
            let (slot, field) = Self.place(context.codingPath)
            self.init(.wrongType, slot: slot, field: field, "expected \(type): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            let (slot, field) = Self.place(context.codingPath)
            self.init(.wrongType, slot: slot, field: field, "expected \(type), found null")
        case .dataCorrupted(let context):
            let (slot, field) = Self.place(context.codingPath)
            if slot == nil && field == nil {
                self.init(.malformedJSON, "not a JSON layout: \(context.debugDescription)")
            } else {
                self.init(.invalidValue, slot: slot, field: field, context.debugDescription)
            }
        @unknown default:
            self.init(.malformedJSON, "\(error)")
        }
    }

    /// The slot index (the array index under `slots`) and the field below it on `path`.
    private static func place(_ path: [any CodingKey]) -> (slot: Int?, field: String?) {
        var slot: Int?
        var field: String?
        var afterSlots = false
        for key in path {
            if let index = key.intValue, afterSlots, slot == nil {
                slot = index
            } else if key.intValue == nil {
                if key.stringValue == "slots" && slot == nil { afterSlots = true } else { field = key.stringValue }
            }
        }
        if slot == nil && field == nil && afterSlots { field = "slots" }
        return (slot, field)
    }
}
