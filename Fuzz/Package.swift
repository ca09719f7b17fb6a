// swift-tools-version: 6.1
// libFuzzer targets for every Confer parser. Each folder under Sources/ is one target
// whose file defines `LLVMFuzzerTestOneInput` and, because SwiftPM links executables with
// `--defsym main=<Target>_main`, a three-line `<Target>_main` that calls `runLibFuzzer`
// from Support/. Build and run them with Fuzz/run (see README).
import PackageDescription
import Foundation

let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let names = ((try? FileManager.default.contentsOfDirectory(atPath: here.appendingPathComponent("Sources").path)) ?? [])
    .filter { !$0.hasPrefix(".") }
    .sorted()

let package = Package(
    name: "ConferFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Confer", path: "..")],
    targets: [.target(name: "FuzzSupport", path: "Support", swiftSettings: [.swiftLanguageMode(.v6)])] + names.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport",
                .product(name: "ConferMedia", package: "Confer"),
                .product(name: "ConferCodecs", package: "Confer"),
                .product(name: "ConferRTP", package: "Confer"),
                .product(name: "ConferSRTP", package: "Confer"),
                .product(name: "ConferMixer", package: "Confer"),
                .product(name: "ConferJitter", package: "Confer"),
                .product(name: "ConferNet", package: "Confer"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]
        )
    }
)
