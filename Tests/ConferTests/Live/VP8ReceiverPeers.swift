import Foundation
import Testing
import ConferNet
@testable import ConferJobs

/// GStreamer and FFmpeg as receivers of a VP8 (or, asked for, VP9) RTP stream (payload
/// type 96) sent to them on loopback, for the suites that show a peer decodes what the host forwards.
enum VP8ReceiverPeers {
    /// Sends `datagrams` to `port` on loopback, a frame's worth at a time.
    static func send(_ datagrams: [[UInt8]], to port: Int) async throws {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { socket in
            for (index, datagram) in datagrams.enumerated() {
                try await socket.send(datagram, to: UDPAddress(host: "127.0.0.1", port: port))
                if index % 4 == 3 { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }

    /// The frames `gst-launch-1.0` (`rtpjitterbuffer ! rtpvp8depay ! vp8dec`, or the VP9
    /// elements for `vp9`) decodes of `datagrams`, each scaled to `width`×`height` on the way
    /// out (so a stream that changes size still makes one raw file); expects it to exit cleanly.
    static func gstreamerFrames(of datagrams: [[UInt8]], width: Int, height: Int, in dir: String,
                                vp9: Bool = false) async throws -> Int {
        let port = try freeUDPPort()
        let (name, element) = vp9 ? ("VP9", "vp9") : ("VP8", "vp8")
        let caps = "application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)\(name),payload=(int)96"
        let pipeline = "udpsrc address=127.0.0.1 port=\(port) caps=\(caps) ! rtpjitterbuffer latency=1000 ! rtp\(element)depay ! "
            + "\(element)dec ! videoscale ! videoconvert ! video/x-raw,format=I420,width=\(width),height=\(height) "
            + "! filesink location=\(dir)/gst.i420"
        let gst = try BackgroundProcess(["gst-launch-1.0", "-e", "-q"] + pipeline.split(separator: " ").map(String.init),
                                        errorLog: dir + "/gst.log")
        try await waitForUDPPort(port)
        try await send(datagrams, to: port)
        await waitForUDPQueueDrained(port)
        let status = await gst.interrupt(within: 15)
        #expect(status == 0, "gst-launch: \(gst.errors)")
        return try wrapI420(dir + "/gst.i420", width: width, height: height, into: dir + "/gst.y4m")
    }

    /// Has `ffmpeg` read `datagrams` through an SDP and write its first `frames` frames,
    /// scaled to `width`×`height`, to `dir`/ff.y4m; expects it to exit cleanly and to report
    /// nothing its depacketizer dropped as lost or corrupt. `vp9`: the stream is VP9.
    static func ffmpegDecode(_ datagrams: [[UInt8]], frames: Int, width: Int, height: Int, in dir: String,
                             vp9: Bool = false) async throws {
        let port = try freeUDPPort(evenPair: true)
        let sdp = dir + "/stream.sdp"
        try """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=forwarded
            c=IN IP4 127.0.0.1
            t=0 0
            m=video \(port) RTP/AVP 96
            a=rtpmap:96 \(vp9 ? "VP9" : "VP8")/90000

            """.write(toFile: sdp, atomically: true, encoding: .utf8)
        let ffmpeg = try BackgroundProcess(["ffmpeg", "-v", "error", "-y", "-protocol_whitelist", "file,udp,rtp", "-i", sdp,
                                            "-frames:v", "\(frames)", "-s", "\(width)x\(height)", "-pix_fmt", "yuv420p",
                                            dir + "/ff.y4m"],
                                           errorLog: dir + "/ffmpeg.log")
        try await waitForUDPPort(port)
        try await send(datagrams, to: port)
        let status = await ffmpeg.exitStatus(within: 15)
        #expect(status == 0, "ffmpeg: \(ffmpeg.errors)")
        #expect(!ffmpeg.errors.contains("RTP: missed") && !ffmpeg.errors.lowercased().contains("corrupt"), "\(ffmpeg.errors)")
    }
}
