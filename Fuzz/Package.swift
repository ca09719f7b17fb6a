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

let confer: [Target.Dependency] = ["Confer", "ConferMedia", "ConferCodecs", "ConferRTP", "ConferSRTP", "ConferMixer",
                                    "ConferJitter", "ConferNet", "ConferSession"].map { .product(name: $0, package: "Confer") }
// Targets that need more than the media and session modules: the admin client brings NIO,
// the tokens jwt-kit.
let extra: [String: [Target.Dependency]] = ["FuzzAdminAnswer": [.product(name: "ConferClient", package: "Confer")],
                                            "FuzzToken": [.product(name: "ConferTokens", package: "Confer")]]

let package = Package(
    name: "ConferFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Confer", path: "..")],
    targets: [
        .target(name: "FuzzSupport", path: "Support", swiftSettings: [.swiftLanguageMode(.v6)]),
        // Real participant traffic and checkers shared by the pipeline targets (a library, not a fuzz target).
        .target(name: "FuzzTraffic", dependencies: confer, path: "Traffic", swiftSettings: [.swiftLanguageMode(.v6)]),
        // Writes Seeds/ (see make-seeds); not a fuzz target, so it lives outside Sources/.
        .executableTarget(name: "FuzzSeedGenerator", dependencies: ["FuzzSupport", "FuzzTraffic"] + confer + (extra["FuzzToken"] ?? []), path: "SeedGenerator",
                          swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]),
    ] + names.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", "FuzzTraffic"] + confer + (extra[name] ?? []),
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]
        )
    }
)
