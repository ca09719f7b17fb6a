// swift-tools-version: 6.1
// Confer's benchmarks: its own package so that the benchmark library never becomes a
// dependency of Confer. Run with `swift package --package-path Benchmarks benchmark`.
import PackageDescription

let suite: [Target.Dependency] = [
    .product(name: "Benchmark", package: "benchmark"),
    .product(name: "Confer", package: "Confer"),
    .product(name: "ConferJobs", package: "Confer"),
    .product(name: "ConferSimulation", package: "Confer"),
    .product(name: "ConferMedia", package: "Confer"),
    .product(name: "ConferCodecs", package: "Confer"),
    .product(name: "ConferRTP", package: "Confer"),
    .product(name: "ConferSRTP", package: "Confer"),
    .product(name: "ConferMixer", package: "Confer"),
    .product(name: "ConferRender", package: "Confer"),
    .product(name: "ConferJitter", package: "Confer"),
    .product(name: "ConferNet", package: "Confer"),
]

let package = Package(
    name: "ConferBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Confer", path: ".."),
        // 1.38.1 resolves here only with the MallocInterposer trait (see ../shared/STYLE.md).
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: ["CodecBenchmarks", "MediaBenchmarks", "MixerBenchmarks", "RenderBenchmarks", "JitterBenchmarks", "RTPBenchmarks", "SRTPBenchmarks",
              "SimulationBenchmarks", "HostScaleBenchmarks", "HostBenchmarks"].map { name in
        .executableTarget(
            name: name,
            // The SRTP suite also calls libsrtp directly, to compare Confer's wrapper with it;
            // the host-scale suite shares its host with the HostScale tool.
            dependencies: suite + (name == "SRTPBenchmarks" ? ["CSRTPBench"] : [])
                + (name == "HostScaleBenchmarks" ? ["HostScaleKit"] : []),
            path: "Benchmarks/\(name)",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    } + [
        // libsrtp2's headers under a module name of its own (a copy of ../CShims/CSRTP: a
        // target's path must lie inside this package, and the name CSRTP is Confer's).
        .systemLibrary(name: "CSRTPBench", path: "CShims/CSRTPBench", pkgConfig: "libsrtp2"),
        // Host scale (N participants decoded, composed, encoded once): the host itself, and a
        // plain release tool that reports real-time factors and CPU time for N = 4…25
        // (run by peers/host-scale.sh).
        .target(
            name: "HostScaleKit",
            dependencies: [
                .product(name: "Confer", package: "Confer"),
                .product(name: "ConferMedia", package: "Confer"),
                .product(name: "ConferCodecs", package: "Confer"),
                .product(name: "ConferMixer", package: "Confer"),
            ],
            path: "Tools/HostScaleKit",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "HostScale",
            dependencies: ["HostScaleKit"],
            path: "Tools/HostScale",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Glass to glass in a live meeting on loopback (run by peers/meeting-latency.sh).
        // What the tools below share: their command line.
        .target(name: "ToolSupport", path: "Tools/ToolSupport", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "MeetingLatency",
            dependencies: [
                "ToolSupport",
                .product(name: "ConferLive", package: "Confer"),
                .product(name: "ConferMedia", package: "Confer"),
                .product(name: "ConferMixer", package: "Confer"),
                .product(name: "ConferNet", package: "Confer"),
                .product(name: "ConferSRTP", package: "Confer"),
            ],
            path: "Tools/MeetingLatency",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Sending bursts of datagrams one at a time or in one write (run by peers/udp-send.sh).
        // STUN Binding requests as fast as a server answers them: Confer's responder beside
        // coturn's (run by peers/stun-binding.sh).
        .executableTarget(
            name: "STUNLoad",
            dependencies: ["ToolSupport", .product(name: "ConferNet", package: "Confer")],
            path: "Tools/STUNLoad",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "UDPSend",
            dependencies: ["ToolSupport", .product(name: "ConferNet", package: "Confer")],
            path: "Tools/UDPSend",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Signaling load: many members in many rooms joining, chatting and leaving against one
        // `confer serve` (run by peers/signal-load.sh).
        .executableTarget(
            name: "SignalLoad",
            dependencies: [
                "ToolSupport",
                .product(name: "ConferSession", package: "Confer"),
                .product(name: "ConferTokens", package: "Confer"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/SignalLoad",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Administrators following a room: the admin watch WebSocket against polling the
        // admin API, on one `confer serve` (run by peers/room-watch.sh).
        .executableTarget(
            name: "RoomWatchLoad",
            dependencies: [
                "ToolSupport",
                .product(name: "ConferClient", package: "Confer"),
                .product(name: "ConferSession", package: "Confer"),
            ],
            path: "Tools/RoomWatchLoad",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // One administrator's admin-API requests in a row: AdminClient against URLSession
        // (run by peers/admin-requests.sh).
        .executableTarget(
            name: "AdminRequests",
            dependencies: [
                "ToolSupport",
                .product(name: "ConferClient", package: "Confer"),
                .product(name: "ConferSession", package: "Confer"),
            ],
            path: "Tools/AdminRequests",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Call set-up on loopback: dial → ringing, accept → first decoded picture, directly and
        // with the callee behind a NAT (run by peers/call-latency.sh against a `confer serve`).
        .executableTarget(
            name: "CallLatency",
            dependencies: [
                "ToolSupport",
                .product(name: "ConferClient", package: "Confer"),
                .product(name: "ConferLive", package: "Confer"),
                .product(name: "ConferSession", package: "Confer"),
                .product(name: "ConferTokens", package: "Confer"),
            ],
            path: "Tools/CallLatency",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The call log at 100,000 calls: writes and page queries, index against table scan
        // (run by peers/call-log.sh).
        .executableTarget(
            name: "CallLogLoad",
            dependencies: [
                "ToolSupport",
                .product(name: "ConferServer", package: "Confer"),
                .product(name: "ConferSession", package: "Confer"),
            ],
            path: "Tools/CallLogLoad",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
