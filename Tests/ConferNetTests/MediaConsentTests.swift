import ConferMedia
import ConferNet
import Testing

/// Consent to send media (RFC 7675's rule without ICE), in virtual time.
@Suite struct MediaConsentTests {
    let peer = UDPAddress(host: "127.0.0.1", port: 40_000)
    let victim = UDPAddress(host: "127.0.0.1", port: 40_002)

    @Test func anAnnouncedAddressGetsNothingUntilSomethingAuthenticatesFromIt() {
        var granted = false
        var consent = MediaConsent()
        #expect(!consent.permits(at: .zero), "no address yet")
        consent.announce(peer)
        #expect(!consent.permits(at: .seconds(1)), "announced is not asked for")
        granted = consent.authenticated(from: victim, at: .seconds(2))
        #expect(!granted, "from another address")
        #expect(!consent.permits(at: .seconds(2)))
        granted = consent.authenticated(from: peer, at: .seconds(3))
        #expect(granted, "the first authenticated packet gives consent")
        #expect(consent.permits(at: .seconds(3)))
        granted = consent.authenticated(from: peer, at: .seconds(4))
        #expect(!granted, "already given: nothing to resend")
        #expect(consent.grants == 1)
    }

    @Test func consentRunsOutALifetimeAfterTheLastAuthenticatedPacketAndComesBack() {
        var granted = false
        var consent = MediaConsent(address: peer, lifetime: .seconds(30))
        granted = consent.authenticated(from: peer, at: .seconds(10))
        #expect(granted)
        granted = consent.authenticated(from: peer, at: .seconds(20))
        #expect(!granted)
        #expect(consent.permits(at: Timestamp(microseconds: 49_999_999)))
        #expect(!consent.permits(at: .seconds(50)), "30 s after the packet at 20 s")
        granted = consent.authenticated(from: peer, at: .seconds(61))
        #expect(granted, "given anew: the caller sends a keyframe")
        #expect(consent.grants == 2)
        #expect(consent.permits(at: .seconds(90)) && !consent.permits(at: .seconds(91)), "30 s after the packet at 61 s")
    }

    @Test func aNewAddressStartsWithoutConsentAndTheSameOneKeepsIt() {
        var granted = false
        var consent = MediaConsent(address: peer)
        _ = consent.authenticated(from: peer, at: .seconds(1))
        consent.announce(peer)
        #expect(consent.permits(at: .seconds(2)), "announcing the same address again changes nothing")
        consent.announce(victim)
        #expect(!consent.permits(at: .seconds(2)), "what came from the old address says nothing of the new")
        granted = consent.authenticated(from: peer, at: .seconds(3))
        #expect(!granted, "the old address no longer counts")
        #expect(!consent.permits(at: .seconds(3)))
        #expect(consent.address == victim)
    }

    @Test func probesComeSoonAtFirstThenTwiceASecondOnlyWhileThereIsNoConsent() {
        var consent = MediaConsent()
        var granted = consent.takeProbe(at: .zero)
        #expect(!granted, "nowhere to probe")
        consent.announce(peer)
        func probes(from start: Int64, to end: Int64) -> [Int64] {
            stride(from: start, to: end, by: 5).filter { consent.takeProbe(at: .milliseconds($0)) }
        }
        // Gaps of 20, 40, 80, 160 and 320 ms, then 500.
        #expect(probes(from: 0, to: 2_000) == [0, 20, 60, 140, 300, 620, 1_120, 1_620])
        granted = consent.authenticated(from: peer, at: .milliseconds(2_000))
        #expect(probes(from: 2_000, to: 31_995) == [], "consent is in force")
        #expect(probes(from: 32_000, to: 32_100) == [32_000, 32_020, 32_060], "probing again from the first once it ran out")
        consent.announce(victim)
        #expect(probes(from: 33_000, to: 33_050) == [33_000, 33_020], "a new address: from the first again")
    }

    @Test func anArrivalOutOfOrderDoesNotShortenConsent() {
        var consent = MediaConsent(address: peer, lifetime: .seconds(5))
        _ = consent.authenticated(from: peer, at: .seconds(10))
        _ = consent.authenticated(from: peer, at: .seconds(8))
        #expect(consent.permits(at: Timestamp(microseconds: 14_999_999)))
    }

    /// Seeded arrivals from the peer and from elsewhere, against the rule written plainly:
    /// media may go at t exactly when a packet authenticated from the announced address in
    /// the lifetime before t.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64]) func followsTheRuleOverRandomArrivals(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let lifetime = TimeDelta.seconds(2)
        var consent = MediaConsent(address: peer, lifetime: lifetime)
        var arrivals: [Timestamp] = []
        var grants = 0
        var time = Timestamp.zero
        for _ in 0 ..< 2_000 {
            time = time + .milliseconds(Int64(random.next() % 900))
            let fromPeer = random.next() % 3 != 0
            let wasPermitted = arrivals.last.map { time - $0 < lifetime } ?? false
            let granted = consent.authenticated(from: fromPeer ? peer : victim, at: time)
            if fromPeer {
                arrivals.append(time)
                if !wasPermitted { grants += 1 }
            }
            #expect(granted == (fromPeer && !wasPermitted))
            let probe = time + .milliseconds(Int64(random.next() % 3_000))
            let expected = arrivals.last.map { probe - $0 < lifetime } ?? false
            #expect(consent.permits(at: probe) == expected)
        }
        #expect(consent.grants == grants && grants > 10, "\(grants) grants")
    }
}
