// swift-tools-version: 6.1
// Confer: a real-time media engine for video meetings.
//
// Modules, imports pointing down only; each target's dependencies below are exactly what its
// sources import (Scripts/check-imports keeps that true):
//   ConferCLI         — the `confer` command, one file per command: Media/ (files and RTP), Simulation/,
//                       Session/ (server, meetings, calls), Support/ (shared options and printing)
//   ConferServer      — the signaling server: rooms hub, call hub and its log (GRDB), WebSockets, admin API, metrics (Hummingbird),
//                       the STUN responder
//   ConferClient      — a member's side: MeetingClient (signaling, reconnection, observable state), MeetingMedia;
//                       a device's calls: CallClient, Call, CallMediaSession; an administrator's: AdminClient, RoomWatch
//   ConferTokens      — JWT tokens (jwt-kit)
//   ConferSession     — the session layer's rules as value types in virtual time, and the wire messages (no I/O)
//   ConferJobs        — file jobs: transcode, mix, render, snapshot, generate, compare; media files in and out
//   ConferSimulation  — virtual-time runs: `confer simulate`, `confer meeting`
//   ConferLive        — pipelines behind real UDP sockets on the wall clock: `confer send`, `confer receive`, live meetings
//   Confer            — the pipelines: Send/, Receive/, Host/ (synchronous, time-driven, no I/O)
//   ConferMixer (compositor, audio mixer)  ConferRender (frame pacer)  ConferJitter (jitter buffers,
//   loss recovery)  ConferCongestion (bandwidth estimation)  ConferNet (UDP, consent, SDP, STUN, network model)
//   ConferRTP         — packets, RTCP, a folder per payload format, the packetizer, RTX history, demux, layer forwarding
//   ConferSRTP        — libsrtp sessions and keys
//   ConferCodecs      — Opus, VP8, VP9, H.264, and the files that need them to be read (Ogg Opus, probe)
//   ConferMedia       — frames, pools, clocks, containers, scaling, metrics
//   CShims/*          — one module map per system library
//   ConferTestSupport — under Tests/: what the test targets share (the wall-clock trait)
// Apps that only need media link Confer, ConferLive or below and none of the server's packages.
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
        .library(name: "ConferJobs", targets: ["ConferJobs"]),
        .library(name: "ConferSimulation", targets: ["ConferSimulation"]),
        .library(name: "ConferLive", targets: ["ConferLive"]),
        .library(name: "ConferMedia", targets: ["ConferMedia"]),
        .library(name: "ConferCodecs", targets: ["ConferCodecs"]),
        .library(name: "ConferRTP", targets: ["ConferRTP"]),
        .library(name: "ConferSRTP", targets: ["ConferSRTP"]),
        .library(name: "ConferNet", targets: ["ConferNet"]),
        .library(name: "ConferMixer", targets: ["ConferMixer"]),
        .library(name: "ConferJitter", targets: ["ConferJitter"]),
        .library(name: "ConferCongestion", targets: ["ConferCongestion"]),
        .library(name: "ConferRender", targets: ["ConferRender"]),
        .library(name: "ConferSession", targets: ["ConferSession"]),
        .library(name: "ConferTokens", targets: ["ConferTokens"]),
        .library(name: "ConferServer", targets: ["ConferServer"]),
        .library(name: "ConferClient", targets: ["ConferClient"]),
        .executable(name: "confer", targets: ["ConferCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The session layer's server and client; no media module depends on these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The call log (SQLite; Debian's libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        shim("COpus", pkgConfig: "opusfile", apt: ["libopus-dev", "libopusfile-dev", "libogg-dev"]),
        shim("CVPX", pkgConfig: "vpx", apt: ["libvpx-dev"]),
        // No pkgConfig: x264.pc adds -DX264_API_IMPORTS, a flag SwiftPM refuses; the header is in /usr/include.
        shim("CX264", apt: ["libx264-dev"]),
        shim("CAVCodec", pkgConfig: "libavcodec", apt: ["libavcodec-dev", "libavutil-dev"]),
        shim("CSRTP", pkgConfig: "libsrtp2", apt: ["libsrtp2-dev"]),
        shim("CYUV", apt: ["libyuv-dev"]),
        shim("CSpeexDSP", pkgConfig: "speexdsp", apt: ["libspeexdsp-dev"]),
        shim("CPNG", pkgConfig: "libpng", apt: ["libpng-dev"]),
        shim("CZlib", pkgConfig: "zlib", apt: ["zlib1g-dev"]),

        .target(name: "ConferMedia", dependencies: ["CYUV", "CSpeexDSP", "CPNG"], swiftSettings: strict),
        .target(name: "ConferCodecs", dependencies: ["ConferMedia", "COpus", "CVPX", "CX264", "CAVCodec"], swiftSettings: strict),
        .target(name: "ConferRTP", dependencies: ["ConferMedia"], swiftSettings: strict),
        .target(name: "ConferSRTP", dependencies: ["CSRTP"], swiftSettings: strict),
        .target(
            name: "ConferNet",
            dependencies: ["ConferMedia", "CZlib", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),
        .target(name: "ConferMixer", dependencies: ["ConferMedia"], swiftSettings: strict),
        .target(name: "ConferJitter", dependencies: ["ConferMedia", "ConferCodecs", "ConferRTP"], swiftSettings: strict),
        .target(name: "ConferCongestion", dependencies: ["ConferMedia", "ConferRTP"], swiftSettings: strict),
        .target(name: "ConferRender", dependencies: ["ConferMedia"], swiftSettings: strict),
        .target(name: "Confer", dependencies: ["ConferMedia", "ConferCodecs", "ConferRTP", "ConferSRTP", "ConferMixer", "ConferJitter",
                                                 "ConferCongestion"], swiftSettings: strict),
        .target(name: "ConferJobs", dependencies: ["ConferMedia", "ConferCodecs", "ConferMixer", "ConferRender"], swiftSettings: strict),
        .target(name: "ConferSimulation", dependencies: ["Confer", "ConferJobs", "ConferMedia", "ConferCodecs", "ConferRTP", "ConferSRTP",
                                                           "ConferNet", "ConferMixer", "ConferJitter", "ConferRender", "ConferSession"],
                swiftSettings: strict),
        .target(name: "ConferLive", dependencies: ["Confer", "ConferJobs", "ConferMedia", "ConferCodecs", "ConferRTP", "ConferSRTP",
                                                     "ConferNet", "ConferJitter", "ConferMixer"], swiftSettings: strict),
        .target(name: "ConferSession", swiftSettings: strict),
        .target(name: "ConferTokens", dependencies: ["ConferSession", .product(name: "JWTKit", package: "jwt-kit")], swiftSettings: strict),
        .target(
            name: "ConferServer",
            dependencies: ["ConferSession", "ConferTokens", "ConferNet",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "HummingbirdTLS", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        .target(
            name: "ConferClient",
            dependencies: ["ConferSession", "ConferLive", "ConferMedia", "ConferNet", "ConferMixer",
                           .product(name: "WSClient", package: "swift-websocket"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ConferCLI",
            dependencies: ["Confer", "ConferJobs", "ConferSimulation", "ConferLive", "ConferMedia", "ConferCodecs", "ConferSRTP", "ConferNet",
                           "ConferMixer", "ConferRender", "ConferSession", "ConferTokens", "ConferServer", "ConferClient",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        .testTarget(name: "ConferMediaTests", dependencies: ["ConferMedia", "ConferCodecs"], swiftSettings: strict),
        .testTarget(name: "ConferCodecsTests", dependencies: ["ConferCodecs", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferRTPTests", dependencies: ["ConferRTP", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferSRTPTests", dependencies: ["ConferSRTP"], swiftSettings: strict),
        .testTarget(name: "ConferJitterTests", dependencies: ["ConferJitter", "ConferRTP", "ConferCodecs", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferCongestionTests", dependencies: ["ConferCongestion", "ConferRTP", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferMixerTests", dependencies: ["ConferMixer", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferRenderTests", dependencies: ["ConferRender", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferNetTests", dependencies: ["ConferNet", "ConferMedia"], swiftSettings: strict),
        .testTarget(name: "ConferSessionTests", dependencies: ["ConferSession"], swiftSettings: strict),
        // What the test targets share (the wall-clock trait); no product links it.
        .target(name: "ConferTestSupport", path: "Tests/ConferTestSupport", swiftSettings: strict),
        .testTarget(name: "ConferServerTests", dependencies: ["ConferTestSupport", "ConferSession", "ConferServer", "ConferClient", "ConferTokens", "ConferCLI", "ConferJobs", "ConferMedia", "ConferLive",
                                                              "ConferRTP", "ConferSRTP",
                                                              .product(name: "WSClient", package: "swift-websocket"),
                                                              .product(name: "Hummingbird", package: "hummingbird"),
                                                              .product(name: "Logging", package: "swift-log"),
                                                              .product(name: "GRDB", package: "GRDB.swift")],
                    swiftSettings: strict),
        .testTarget(name: "ConferTests", dependencies: ["ConferTestSupport", "Confer", "ConferJobs", "ConferSimulation", "ConferLive", "ConferCLI", "ConferMedia",
                                                        "ConferCodecs", "ConferRTP", "ConferSRTP", "ConferNet", "ConferMixer", "ConferJitter",
                                                        "ConferRender"], swiftSettings: strict),
    ]
)
