// swift-tools-version: 6.1
// Confer: a real-time media engine for video meetings.
//
// Layers (imports point down only):
//   ConferCLI (the `confer` command)
//   Confer            — jobs and pipelines
//   ConferMixer       — video compositor, audio mixer;  ConferRender — frame pacer
//   ConferJitter      — jitter buffers, loss recovery;  ConferCongestion — bandwidth estimation
//   ConferNet         — UDP (SwiftNIO), SDP
//   ConferRTP, ConferSRTP
//   ConferCodecs      — Opus, VP8, VP9, H.264
//   ConferMedia       — frames, pools, clocks, file formats, scaling, metrics
//   CShims/*          — one module map per system library, helpers only where Swift cannot call
import PackageDescription

/// A system library wrapped by one module map under `CShims/`.
func shim(_ name: String, pkgConfig: String? = nil, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "CShims/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Confer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Confer", targets: ["Confer"]),
        .library(name: "ConferMedia", targets: ["ConferMedia"]),
        .library(name: "ConferCodecs", targets: ["ConferCodecs"]),
        .library(name: "ConferRTP", targets: ["ConferRTP"]),
        .library(name: "ConferSRTP", targets: ["ConferSRTP"]),
        .library(name: "ConferNet", targets: ["ConferNet"]),
        .library(name: "ConferMixer", targets: ["ConferMixer"]),
        .library(name: "ConferJitter", targets: ["ConferJitter"]),
        .library(name: "ConferCongestion", targets: ["ConferCongestion"]),
        .library(name: "ConferRender", targets: ["ConferRender"]),
        .executable(name: "confer", targets: ["ConferCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        shim("COpus", pkgConfig: "libopusenc", apt: ["libopus-dev", "libopusenc-dev", "libopusfile-dev", "libogg-dev"]),
        shim("CVPX", pkgConfig: "vpx", apt: ["libvpx-dev"]),
        // No pkgConfig: x264.pc adds -DX264_API_IMPORTS, a flag SwiftPM refuses; the header is in /usr/include.
        shim("CX264", apt: ["libx264-dev"]),
        shim("CAVCodec", pkgConfig: "libavcodec", apt: ["libavcodec-dev", "libavutil-dev"]),
        shim("CSRTP", pkgConfig: "libsrtp2", apt: ["libsrtp2-dev"]),
        shim("CYUV", apt: ["libyuv-dev"]),
        shim("CSpeexDSP", pkgConfig: "speexdsp", apt: ["libspeexdsp-dev"]),
        shim("CPNG", pkgConfig: "libpng", apt: ["libpng-dev"]),

        .target(name: "ConferMedia", dependencies: ["CYUV", "CSpeexDSP", "COpus", "CPNG"], swiftSettings: strict),
        .target(name: "ConferCodecs", dependencies: ["ConferMedia", "COpus", "CVPX", "CX264", "CAVCodec"], swiftSettings: strict),
        .target(name: "ConferRTP", dependencies: ["ConferMedia", "ConferCodecs"], swiftSettings: strict),
        .target(name: "ConferSRTP", dependencies: ["CSRTP"], swiftSettings: strict),
        .target(
            name: "ConferNet",
            dependencies: ["ConferMedia", "ConferRTP", "ConferSRTP",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),
        .target(name: "ConferMixer", dependencies: ["ConferMedia"], swiftSettings: strict),
        .target(name: "ConferJitter", dependencies: ["ConferMedia", "ConferCodecs", "ConferRTP"], swiftSettings: strict),
        .target(name: "ConferCongestion", dependencies: ["ConferMedia", "ConferRTP"], swiftSettings: strict),
        .target(name: "ConferRender", dependencies: ["ConferMedia"], swiftSettings: strict),
        .target(name: "Confer", dependencies: ["ConferMedia", "ConferCodecs", "ConferRTP", "ConferSRTP", "ConferNet", "ConferMixer", "ConferRender",
                                                 "ConferJitter", "ConferCongestion"], swiftSettings: strict),
        .executableTarget(
            name: "ConferCLI",
            dependencies: ["Confer", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),

        .testTarget(name: "ConferMediaTests", dependencies: ["ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferCodecsTests", dependencies: ["ConferCodecs"], swiftSettings: strict),
        .testTarget(name: "ConferRTPTests", dependencies: ["ConferRTP"], swiftSettings: strict),
        .testTarget(name: "ConferSRTPTests", dependencies: ["ConferSRTP"], swiftSettings: strict),
        .testTarget(name: "ConferJitterTests", dependencies: ["ConferJitter", "ConferRTP", "ConferCodecs", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferCongestionTests", dependencies: ["ConferCongestion"], swiftSettings: strict),
        .testTarget(name: "ConferMixerTests", dependencies: ["ConferMixer"], swiftSettings: strict),
        .testTarget(name: "ConferRenderTests", dependencies: ["ConferRender"], swiftSettings: strict),
        .testTarget(name: "ConferNetTests", dependencies: ["ConferNet"], swiftSettings: strict),
        .testTarget(name: "ConferTests", dependencies: ["Confer", "ConferCLI"], swiftSettings: strict),
    ]
)
