import ArgumentParser

/// A picture size given as WIDTHxHEIGHT on the command line.
struct VideoSize: ExpressibleByArgument, Codable, Equatable, CustomStringConvertible {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (2...16384).contains(w), (2...16384).contains(h), w % 2 == 0, h % 2 == 0 else { return nil }
        self.init(width: w, height: h)
    }

    var description: String { "\(width)x\(height)" }
    static var defaultValueDescription: String { "WIDTHxHEIGHT (even, for example 640x360)" }
}
