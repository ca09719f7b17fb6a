import Foundation
import ArgumentParser

/// Options every command shares: how to print the result.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the result as JSON on stdout instead of a human summary.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print no progress on stderr.")
    var quiet = false
}

/// A result a command prints: a table for people, JSON for machines.
protocol CommandReport: Encodable {
    /// Lines for a person reading a terminal.
    var humanSummary: [String] { get }
}

extension OutputOptions {
    /// Prints `report` in the chosen form on stdout.
    func emit<R: CommandReport>(_ report: R) throws {
        if json {
            let data = try reportJSON(report)
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        } else {
            print(report.humanSummary.joined(separator: "\n"))
        }
    }

    /// A progress printer that writes to stderr, or one that stays silent.
    func progress(_ label: String) -> ProgressPrinter { ProgressPrinter(label: label, enabled: !quiet) }
}

/// `value` as every command writes JSON, on stdout or to a --report file: indented, keys
/// sorted, and infinities and NaN as strings (JSON has no number for them).
func reportJSON<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return try encoder.encode(value)
}

/// Formats rows as an aligned text table (first row is the header).
func table(_ rows: [[String]]) -> [String] {
    guard let first = rows.first else { return [] }
    var widths = [Int](repeating: 0, count: first.count)
    for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
    return rows.enumerated().flatMap { index, row -> [String] in
        let line = row.enumerated().map { i, cell in
            i == 0 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                   : String(repeating: " ", count: widths[i] - cell.count) + cell
        }.joined(separator: "  ")
        if index == 0 { return [line, String(repeating: "-", count: line.count)] }
        return [line]
    }
}

/// Formats `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int = 1) -> String {
    value.isFinite ? String(format: "%.\(digits)f", value) : (value > 0 ? "inf" : "-")
}

/// Formats a byte count for people (B, KiB, MiB).
func formatBytes(_ n: Int) -> String {
    if n < 10 * 1024 { return "\(n) B" }
    if n < 10 * 1024 * 1024 { return "\(n / 1024) KiB" }
    return fixed(Double(n) / 1_048_576, 1) + " MiB"
}

/// Writes a line to stderr.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
