import ConferMedia

/// The text parser behind ``NetworkTrace``: strict, line-numbered, and bounded in the
/// memory it takes whatever the input.
enum NetworkTraceParser {
    static func parse(_ bytes: [UInt8]) throws(NetworkTraceError) -> [NetworkTrace.Entry] {
        guard bytes.count <= NetworkTrace.maximumFileBytes else {
            throw NetworkTraceError(.tooLarge, "more than \(NetworkTrace.maximumFileBytes >> 20) MiB of text")
        }
        var entries: [NetworkTrace.Entry] = []
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            if let entry = try parseLine(bytes[start..<end], line: lineNumber) {
                guard entries.count < NetworkTrace.maximumEntries else {
                    throw NetworkTraceError(.tooLarge, line: lineNumber, "more than \(NetworkTrace.maximumEntries) entries")
                }
                entries.append(entry)
            }
            start = end + 1
        }
        guard !entries.isEmpty else { throw NetworkTraceError(.empty, "no delay or loss lines") }
        return entries
    }

    /// One line's entry, or nil for a blank or comment line.
    private static func parseLine(_ line: ArraySlice<UInt8>, line number: Int) throws(NetworkTraceError) -> NetworkTrace.Entry? {
        var text = line
        if let hash = text.firstIndex(of: UInt8(ascii: "#")) { text = text[..<hash] }
        while let first = text.first, isSpace(first) { text = text.dropFirst() }
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        if text.isEmpty { return nil }
        if text.count == 4 && text.map({ $0 | 0x20 }).elementsEqual("loss".utf8) { return .loss }
        if text.first == UInt8(ascii: "-") && text.count > 1 && isDigit(text[text.index(after: text.startIndex)]) {
            throw NetworkTraceError(.delayOutOfRange, line: number, "negative delay \(quoted(text))")
        }
        guard let microseconds = parseMilliseconds(text) else {
            throw NetworkTraceError(.invalidEntry, line: number,
                                    "expected a delay in milliseconds or \"loss\", found \(quoted(text))")
        }
        guard microseconds <= NetworkTrace.maximumDelay.microseconds else {
            throw NetworkTraceError(.delayOutOfRange, line: number,
                                    "delay \(quoted(text)) ms is longer than \(NetworkTrace.maximumDelay.milliseconds) ms")
        }
        return .delay(TimeDelta(microseconds: microseconds))
    }

    /// `DIGITS[.DIGITS]` or `.DIGITS` in milliseconds, as microseconds; nil for anything else.
    /// The integer part is capped at 12 digits, so the result cannot overflow.
    private static func parseMilliseconds(_ text: ArraySlice<UInt8>) -> Int64? {
        var whole: Int64 = 0, wholeDigits = 0
        var fraction: Int64 = 0, fractionDigits = 0
        var sawPoint = false
        for byte in text {
            if byte == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if isDigit(byte) {
                let digit = Int64(byte - UInt8(ascii: "0"))
                if sawPoint {
                    if fractionDigits < 3 { fraction = fraction * 10 + digit }
                    fractionDigits += 1
                } else {
                    if wholeDigits == 12 { return Int64.max }  // far beyond the limit; reported as out of range
                    whole = whole * 10 + digit
                    wholeDigits += 1
                }
            } else {
                return nil
            }
        }
        guard wholeDigits + fractionDigits > 0 else { return nil }
        for _ in min(fractionDigits, 3)..<3 { fraction *= 10 }
        return whole * 1000 + fraction
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// The line's text for an error message, shortened and with unprintable bytes escaped.
    private static func quoted(_ text: ArraySlice<UInt8>) -> String {
        var out = "\""
        for byte in text.prefix(40) {
            if byte >= 0x20 && byte < 0x7F { out.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                out += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out + (text.count > 40 ? "…\"" : "\"")
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
