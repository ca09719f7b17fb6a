/// Why a layout description was rejected: what was wrong, in which slot and which field.
///
/// Custom layouts come from outside (a JSON file, an operator's command line), so every
/// problem is reported as a value naming its place rather than trapping.
public struct LayoutError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// The text is not JSON, or not an object with a `slots` array.
        case malformedJSON
        /// A required field is absent.
        case missingField
        /// A field holds the wrong kind of value (a string where a number belongs, …).
        case wrongType
        /// A field holds a value outside what it allows (an unknown mode, a non-finite number).
        case invalidValue
        /// A slot reaches outside the canvas (coordinates must stay within 0…1).
        case outOfRange
        /// A slot's width or height is zero or negative.
        case nonPositiveSize
        /// The layout has more than ``VideoLayout/maximumSlotCount`` slots.
        case tooManySlots
        /// The layout has no slot at all.
        case noSlots
        /// The description is longer than ``VideoLayout/maximumJSONByteCount`` bytes.
        case tooLarge
    }

    /// What kind of problem it was.
    public let reason: Reason
    /// The index of the offending slot in the `slots` array, when one slot is at fault.
    public let slot: Int?
    /// The offending field (`"x"`, `"width"`, `"mode"`, …), when one field is at fault.
    public let field: String?
    /// A sentence for a person: what was wrong.
    public let detail: String

    /// An error of `reason` at `slot`'s `field`.
    public init(_ reason: Reason, slot: Int? = nil, field: String? = nil, _ detail: String) {
        self.reason = reason
        self.slot = slot
        self.field = field
        self.detail = detail
    }

    public var description: String {
        var place = ""
        if let slot { place += "slot \(slot)" }
        if let field { place += place.isEmpty ? "field \(field)" : ", field \(field)" }
        return place.isEmpty ? "layout: \(detail)" : "layout \(place): \(detail)"
    }
}
