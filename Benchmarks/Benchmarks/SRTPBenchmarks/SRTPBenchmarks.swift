// SRTP protect and unprotect of 1200-byte RTP packets per profile: Confer's SRTPSession
// beside a plain loop over libsrtp's srtp_protect / srtp_unprotect, so the wrapper's cost
// reads as the ratio of the two. One iteration is one packet (1000 per sample).
//
// Both paths do the same per-packet work around the call: copy the plain packet into an
// aligned buffer and set its sequence number (protect), or unprotect the next of 1000
// packets protected beforehand into a fresh inbound context (unprotect; the copies and the
// context are made before each sample's measurement starts). Debian's libsrtp2 is built on
// NSS, whose cipher contexts allocate inside libsrtp on every packet: the malloc counts of
// both paths include that, and the wrapper adds none.
import Benchmark
import ConferMedia
import ConferSRTP
import CSRTPBench

/// A libsrtp context made exactly as SRTPSession makes its own, called without a wrapper.
final class RawSRTP {
    let context: srtp_t

    init(key: SRTPMasterKey, outbound: Bool) {
        _ = srtp_init()
        var policy = srtp_policy_t()
        switch key.profile {
        case .aes128CmHmacSha1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aes128CmHmacSha1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = 1024
        policy.allow_repeat_tx = 0
        var material = key.keyingMaterial
        var created: srtp_t?
        let status = material.withUnsafeMutableBufferPointer { keyBytes in
            policy.key = keyBytes.baseAddress
            return srtp_create(&created, &policy)
        }
        precondition(status == srtp_err_status_ok, "srtp_create failed: \(status)")
        context = created!
    }

    deinit { srtp_dealloc(context) }
}

/// A 1200-byte RTP packet: a 12-byte header (PT 96, SSRC 0xC0FFEE) and 1188 bytes of payload.
func plainPacket() -> [UInt8] {
    var random = SeededRandom(seed: 5)
    var packet = (0 ..< 1200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    packet[0] = 0x80
    packet[1] = 96
    packet[8 ..< 12] = [0x00, 0xC0, 0xFF, 0xEE]
    return packet
}

let batch = 1000
let stride = 1232   // 1200 bytes, the largest tag (16) and alignment to 16

/// Copies `plain` into `buffer` with sequence number `sequence`.
@inline(__always)
func load(_ plain: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, sequence: UInt16) {
    buffer.copyMemory(from: plain)
    buffer[2] = UInt8(sequence >> 8)
    buffer[3] = UInt8(sequence & 0xFF)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )
    let plain = plainPacket()

    for profile in SRTPProfile.allCases {
        var random = SeededRandom(seed: 9)
        let key = SRTPMasterKey.random(profile: profile, using: &random)

        // Protect.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: stride, alignment: 16)
        let session = try! SRTPSession(key: key, direction: .outbound)
        var sequence: UInt16 = 0
        Benchmark("SRTP protect 1200 B \(profile) (Confer)") { benchmark in
            plain.withUnsafeBytes { plainBytes in
                for _ in benchmark.scaledIterations {
                    sequence &+= 1
                    load(plainBytes, into: buffer, sequence: sequence)
                    blackHole(try! session.protectRTP(buffer, length: 1200))
                }
            }
        }
        let raw = RawSRTP(key: key, outbound: true)
        var rawSequence: UInt16 = 0
        Benchmark("SRTP protect 1200 B \(profile) (libsrtp direct)") { benchmark in
            plain.withUnsafeBytes { plainBytes in
                for _ in benchmark.scaledIterations {
                    rawSequence &+= 1
                    load(plainBytes, into: buffer, sequence: rawSequence)
                    var length: Int32 = 1200
                    let status = srtp_protect(raw.context, buffer.baseAddress, &length)
                    precondition(status == srtp_err_status_ok)
                    blackHole(length)
                }
            }
        }

        // Unprotect: 1000 packets protected once, copied afresh for every sample.
        let protectedPackets = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * batch, alignment: 16)
        var lengths: [Int] = []
        let sender = try! SRTPSession(key: key, direction: .outbound)
        plain.withUnsafeBytes { plainBytes in
            for index in 0 ..< batch {
                let slot = UnsafeMutableRawBufferPointer(rebasing: protectedPackets[index * stride ..< (index + 1) * stride])
                load(plainBytes, into: slot, sequence: UInt16(index))
                lengths.append(try! sender.protectRTP(slot, length: 1200))
            }
        }
        let work = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * batch, alignment: 16)
        Benchmark("SRTP unprotect 1200 B \(profile) (Confer)") { benchmark in
            work.copyMemory(from: UnsafeRawBufferPointer(protectedPackets))
            let receiver = try! SRTPSession(key: key, direction: .inbound)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                let slot = UnsafeMutableRawBufferPointer(rebasing: work[index * stride ..< (index + 1) * stride])
                blackHole(try! receiver.unprotectRTP(slot, length: lengths[index]))
            }
            benchmark.stopMeasurement()
        }
        Benchmark("SRTP unprotect 1200 B \(profile) (libsrtp direct)") { benchmark in
            work.copyMemory(from: UnsafeRawBufferPointer(protectedPackets))
            let receiver = RawSRTP(key: key, outbound: false)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                var length = Int32(lengths[index])
                let status = srtp_unprotect(receiver.context, work.baseAddress! + index * stride, &length)
                precondition(status == srtp_err_status_ok)
                blackHole(length)
            }
            benchmark.stopMeasurement()
        }
    }
}
