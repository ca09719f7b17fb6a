import Foundation

/// A benchmark tool's command line: `--name value` pairs, read once. The tools are run by
/// the scripts in `Benchmarks/peers/`, which always give both halves of a pair.
public struct ToolArguments: Sendable {
    private let values: [String: String]
    private let usage: String

    /// The process's arguments; `usage` is printed when a required one is missing.
    public init(usage: String, arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        var values = [String: String]()
        var iterator = arguments.makeIterator()
        while let key = iterator.next() { values[key] = iterator.next() }
        self.values = values
        self.usage = usage
    }

    /// The value given for `name`, if any.
    public subscript(_ name: String) -> String? { values[name] }

    /// The value given for `name`; without one, the usage on stderr and exit status 2.
    public func required(_ name: String) -> String {
        guard let value = values[name] else {
            FileHandle.standardError.write(Data("usage: \(usage)\n".utf8))
            exit(2)
        }
        return value
    }

    /// `problem` and the usage on stderr, then exit status 2: for a value given but unusable.
    public func fail(_ problem: String) -> Never {
        FileHandle.standardError.write(Data("\(problem)\nusage: \(usage)\n".utf8))
        exit(2)
    }

    /// `name` as a whole number, or `value` when it is not given (or is not one).
    public func int(_ name: String, default value: Int) -> Int { values[name].flatMap { Int($0) } ?? value }

    /// `name` as a number, or `value` when it is not given (or is not one).
    public func double(_ name: String, default value: Double) -> Double { values[name].flatMap { Double($0) } ?? value }
}
