import Foundation
import Testing

/// A fresh temporary directory for one test.
func makeTemporaryDirectory(_ name: String = #function) throws -> String {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let path = NSTemporaryDirectory() + "confer-tests-\(safe)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Whether an executable is on the PATH.
func toolExists(_ name: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
    }
}

/// The result of running a tool.
struct ToolResult {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs `arguments[0]` with the rest as arguments and waits for it (bounded by `timeout` seconds).
@discardableResult
func runTool(_ arguments: [String], timeout: Double = 120) throws -> ToolResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes to the end before waiting, so a chatty tool cannot fill a pipe and stall.
    nonisolated(unsafe) var errData = Data()
    let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    errReader.start()
    let deadline = DispatchTime.now() + timeout
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: deadline, execute: killer)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    killer.cancel()
    while errReader.isExecuting { usleep(1000) }
    return ToolResult(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
                      errors: String(decoding: errData, as: UTF8.self))
}

/// Frames (video) or packets/samples counted by ffprobe for the first stream.
func ffprobeCount(_ path: String, entry: String = "nb_read_frames") throws -> Int {
    let result = try runTool(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "0",
                              "-show_entries", "stream=\(entry)", "-of", "default=nokey=1:noprint_wrappers=1", path])
    guard result.status == 0, let n = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw TestFailure("ffprobe failed on \(path): \(result.errors)")
    }
    return n
}

/// An error a test helper throws to fail the test with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether FFmpeg's tools are installed (Scripts/install-deps installs them).
let hasFFmpeg = toolExists("ffmpeg") && toolExists("ffprobe")
