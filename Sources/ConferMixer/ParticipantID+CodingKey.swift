extension ParticipantID: CodingKeyRepresentable {
    /// The key a dictionary keyed by participant encodes with: the number as text, so such a
    /// dictionary (the host's per-participant statistics) is a JSON object, not an array of pairs.
    public var codingKey: any CodingKey { Key(rawValue) }

    /// The participant a decoded dictionary key names; nil when the key is not a number.
    public init?<T: CodingKey>(codingKey: T) {
        guard let value = codingKey.intValue.flatMap(UInt32.init(exactly:)) ?? UInt32(codingKey.stringValue) else {
            return nil
        }
        self.init(value)
    }

    private struct Key: CodingKey {
        let stringValue: String
        let intValue: Int?
        init(_ value: UInt32) {
            stringValue = String(value)
            intValue = Int(value)
        }
        init?(stringValue: String) {
            guard let value = UInt32(stringValue) else { return nil }
            self.init(value)
        }
        init?(intValue: Int) {
            guard let value = UInt32(exactly: intValue) else { return nil }
            self.init(value)
        }
    }
}
