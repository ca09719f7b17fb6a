import ConferMedia
import ConferSRTP

/// The master key FuzzSRTPUnprotect keys its sessions with for `profile`; the seed
/// generator protects its packets with the same key, so the seeds authenticate there.
public func fuzzSRTPKey(profile: SRTPProfile) -> SRTPMasterKey {
    var random = SeededRandom(seed: 42)
    return SRTPMasterKey.random(profile: profile, using: &random)
}
