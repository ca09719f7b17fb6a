import ConferMedia
import ConferNet
import Testing

/// Consent to send media (RFC 7675's checks without ICE), in virtual time.
@Suite struct MediaConsentTests {
    let peer = UDPAddress(host: "127.0.0.1", port: 40_000)
    let victim = UDPAddress(host: "127.0.0.1", port: 40_002)

    @Test func anAnnouncedAddressGetsNothingUntilItAnswersTheChallengeSentThere() throws {
        var random = SeededRandom(seed: 1)
        var consent = MediaConsent()
        #expect(!consent.permits(at: .zero), "no address yet")
        #expect(consent.takeChallenge(at: .zero, using: &random) == nil, "nowhere to send a challenge")
        consent.announce(peer)
        #expect(!consent.permits(at: .seconds(1)), "announced is not asked for")
        consent.authenticated(from: peer, at: .seconds(1))
        #expect(!consent.permits(at: .seconds(1)), "a packet that authenticates may have a forged source: it gives nothing")
        let nonce = try #require(consent.takeChallenge(at: .seconds(2), using: &random))
        var granted = consent.answered(nonce ^ 1, from: peer, at: .seconds(2))
        #expect(!granted, "another nonce")
        granted = consent.answered(nonce, from: victim, at: .seconds(2))
        #expect(!granted, "the right nonce from another address")
        #expect(!consent.permits(at: .seconds(2)) && consent.answersRefused == 2)
        granted = consent.answered(nonce, from: peer, at: .seconds(3))
        #expect(granted, "the answer from the address gives consent")
        #expect(consent.permits(at: .seconds(3)))
        granted = consent.answered(nonce, from: peer, at: .seconds(4))
        #expect(!granted, "a second answer to a challenge sent twice: nothing to resend")
        #expect(consent.grants == 1 && consent.answersRefused == 2)
    }

    @Test func consentLastsWhilePacketsAuthenticateAndRunsOutALifetimeAfterTheLast() throws {
        var outcome = false
        var random = SeededRandom(seed: 2)
        var consent = MediaConsent(address: peer, lifetime: .seconds(30))
        let first = try #require(consent.takeChallenge(at: .seconds(10), using: &random))
        outcome = consent.answered(first, from: peer, at: .seconds(10))
        #expect(outcome)
        consent.authenticated(from: peer, at: .seconds(20))
        consent.authenticated(from: victim, at: .seconds(25))
        #expect(consent.permits(at: Timestamp(microseconds: 49_999_999)))
        #expect(!consent.permits(at: .seconds(50)), "30 s after the packet at 20 s; the one from elsewhere does not count")
        consent.authenticated(from: peer, at: .seconds(51))
        #expect(!consent.permits(at: .seconds(51)), "run out: only a new answer brings it back")
        outcome = consent.answered(first, from: peer, at: .seconds(52))
        #expect(!outcome, "the old nonce gives nothing once run out")
        let second = try #require(consent.takeChallenge(at: .seconds(60), using: &random))
        #expect(second != first, "a new nonce")
        outcome = consent.answered(first, from: peer, at: .seconds(61))
        #expect(!outcome, "the old nonce gives nothing")
        outcome = consent.answered(second, from: peer, at: .seconds(61))
        #expect(outcome, "given anew: the caller sends a keyframe")
        #expect(consent.grants == 2)
        #expect(consent.permits(at: .seconds(90)) && !consent.permits(at: .seconds(91)), "30 s after the answer at 61 s")
    }

    @Test func aNewAddressStartsWithoutConsentAndItsOwnNonce() throws {
        var outcome = false
        var random = SeededRandom(seed: 3)
        var consent = MediaConsent(address: peer)
        let nonce = try #require(consent.takeChallenge(at: .seconds(1), using: &random))
        _ = consent.answered(nonce, from: peer, at: .seconds(1))
        consent.announce(peer)
        #expect(consent.permits(at: .seconds(2)), "announcing the same address again changes nothing")
        consent.announce(victim)
        #expect(!consent.permits(at: .seconds(2)), "what came from the old address says nothing of the new")
        outcome = consent.answered(nonce, from: victim, at: .seconds(2))
        #expect(!outcome, "nor does the old address's nonce")
        let next = try #require(consent.takeChallenge(at: .seconds(3), using: &random))
        #expect(next != nonce)
        outcome = consent.answered(next, from: peer, at: .seconds(3))
        #expect(!outcome, "the old address no longer counts")
        #expect(!consent.permits(at: .seconds(3)))
        #expect(consent.address == victim)
    }

    @Test func challengesComeSoonAtFirstThenTwiceASecondWithOneNonceUntilAnswered() throws {
        var outcome = false
        var random = SeededRandom(seed: 4)
        var consent = MediaConsent(address: peer)
        var nonces: Set<UInt128> = []
        func challenges(from start: Int64, to end: Int64) -> [Int64] {
            stride(from: start, to: end, by: 5).filter {
                guard let nonce = consent.takeChallenge(at: .milliseconds($0), using: &random) else { return false }
                nonces.insert(nonce)
                return true
            }
        }
        // Gaps of 20, 40, 80, 160 and 320 ms, then 500.
        #expect(challenges(from: 0, to: 2_000) == [0, 20, 60, 140, 300, 620, 1_120, 1_620])
        #expect(nonces.count == 1 && consent.challengesSent == 8, "one nonce, sent again until answered")
        let nonce = try #require(nonces.first)
        outcome = consent.answered(nonce, from: peer, at: .milliseconds(2_000))
        #expect(outcome)
        #expect(challenges(from: 2_000, to: 31_995) == [], "consent is in force")
        #expect(challenges(from: 32_000, to: 32_100) == [32_000, 32_020, 32_060], "from the first again once it ran out")
        #expect(nonces.count == 2, "with a new nonce")
        consent.announce(victim)
        #expect(challenges(from: 33_000, to: 33_050) == [33_000, 33_020], "a new address: from the first again")
        #expect(nonces.count == 3)
    }

    @Test func challengesAreAnsweredOnlyFromThePeersAddressAndNotFasterThanTheGap() {
        var outcome = false
        var consent = MediaConsent(address: peer)
        outcome = consent.answers(challengeFrom: victim, at: .zero)
        #expect(!outcome, "not to another address")
        outcome = consent.answers(challengeFrom: peer, at: .zero)
        #expect(outcome)
        outcome = consent.answers(challengeFrom: peer, at: .milliseconds(9))
        #expect(!outcome, "within the gap")
        outcome = consent.answers(challengeFrom: peer, at: .milliseconds(10))
        #expect(outcome)
        let answered = (0 ..< 1_000).filter { consent.answers(challengeFrom: peer, at: .milliseconds(1_000 + Int64($0))) }
        #expect(answered.count == 100, "a flood of challenges gets at most one answer per 10 ms")
    }

    @Test func silenceCountsFromTheLastAuthenticatedPacketAtTheAddress() throws {
        var random = SeededRandom(seed: 6)
        var consent = MediaConsent(address: peer)
        #expect(consent.silence(at: .seconds(1)) == nil, "no consent yet")
        let nonce = try #require(consent.takeChallenge(at: .seconds(1), using: &random))
        _ = consent.answered(nonce, from: peer, at: .seconds(1))
        consent.authenticated(from: peer, at: .seconds(3))
        consent.authenticated(from: victim, at: .seconds(4))
        #expect(consent.silence(at: .seconds(6)) == .seconds(3), "the packet from elsewhere does not count")
        consent.announce(victim)
        #expect(consent.silence(at: .seconds(6)) == nil, "a new address has said nothing")
    }

    @Test func anArrivalOutOfOrderDoesNotShortenConsent() throws {
        var random = SeededRandom(seed: 5)
        var consent = MediaConsent(address: peer, lifetime: .seconds(5))
        let nonce = try #require(consent.takeChallenge(at: .seconds(1), using: &random))
        _ = consent.answered(nonce, from: peer, at: .seconds(1))
        consent.authenticated(from: peer, at: .seconds(4))
        consent.authenticated(from: peer, at: .seconds(3))
        #expect(consent.permits(at: Timestamp(microseconds: 8_999_999)))
        #expect(!consent.permits(at: .seconds(9)))
    }

    /// A peer whose datagrams authenticate from another address than it announced (a NAT's
    /// mapping) is moved there while it has no consent, at most once a second, and starts
    /// there without consent, challenged at once with a new nonce.
    @Test func aPeerWithoutConsentMovesWhereItsDatagramsComeFromAtMostOnceASecond() throws {
        var random = SeededRandom(seed: 7)
        let mapped = UDPAddress(host: "127.0.0.1", port: 40_004)
        var consent = MediaConsent(address: peer)
        let first = try #require(consent.takeChallenge(at: .zero, using: &random))
        #expect(consent.takeChallenge(at: .milliseconds(5), using: &random) == nil, "the next probe is 20 ms away")
        #expect(consent.mayMove(at: .milliseconds(10)), "no consent at the announced address")
        consent.move(to: mapped, at: .milliseconds(10))
        #expect(consent.address == mapped && consent.moves == 1 && !consent.permits(at: .milliseconds(10)))
        let second = try #require(consent.takeChallenge(at: .milliseconds(10), using: &random), "challenged at once where it was moved")
        #expect(second != first, "a new nonce: an answer to the old one says nothing of the new address")
        let old = consent.answered(first, from: mapped, at: .milliseconds(11))
        #expect(!old, "the old nonce from the new address")
        #expect(!consent.mayMove(at: .milliseconds(1_009)), "within a second of the last move")
        #expect(consent.mayMove(at: .milliseconds(1_010)))
        consent.move(to: mapped, at: .milliseconds(1_010))
        #expect(consent.moves == 1, "a move to where it is already is none")
        let granted = consent.answered(second, from: mapped, at: .seconds(2))
        #expect(granted, "the answer from the new address gives consent")
        #expect(consent.permits(at: .seconds(2)))
    }

    /// A peer heard at its address stays there whatever comes from elsewhere; silent for two
    /// seconds, it may be moved (a NAT that mapped it anew, or a new network).
    @Test func aPeerHeardWhereItIsStaysThereUntilSilentForTwoSeconds() throws {
        var random = SeededRandom(seed: 8)
        var consent = MediaConsent(address: peer)
        let nonce = try #require(consent.takeChallenge(at: .seconds(1), using: &random))
        let granted = consent.answered(nonce, from: peer, at: .seconds(1))
        #expect(granted)
        consent.authenticated(from: peer, at: .seconds(3))
        #expect(!consent.mayMove(at: .seconds(3)), "just heard")
        #expect(!consent.mayMove(at: Timestamp(microseconds: 4_999_999)), "silent for less than two seconds")
        #expect(consent.mayMove(at: .seconds(5)), "silent for two seconds while consent is still in force")
        consent.move(to: victim, at: .seconds(5))
        #expect(!consent.permits(at: .seconds(5)), "consent at the old address does not follow the move")
        #expect(consent.grants == 1 && consent.moves == 1)
    }

    /// Behind a NAT that does not hairpin, a peer on the same LAN is reached at its bound
    /// address, not at the NAT's mapping the STUN server saw: both are announced, both are
    /// challenged, and media goes to the first that answers.
    @Test func everyAnnouncedAddressIsChallengedAndTheFirstToAnswerIsWhereMediaGoes() throws {
        let mapped = UDPAddress(host: "198.51.100.1", port: 61_000), bound = UDPAddress(host: "10.1.0.3", port: 50_000)
        var random = SeededRandom(seed: 6)
        var consent = MediaConsent()
        consent.announce(mapped, alternates: [bound, mapped, bound])
        #expect(consent.candidates == [mapped, bound], "duplicates dropped, the preferred first")
        #expect(consent.address == mapped, "before an answer, the preferred one")
        let nonce = try #require(consent.takeChallenge(at: .seconds(1), using: &random))
        var granted = consent.answered(nonce, from: victim, at: .seconds(1))
        #expect(!granted, "an address the peer did not announce gives nothing")
        granted = consent.answered(nonce ^ 1, from: bound, at: .seconds(1))
        #expect(!granted, "another nonce")
        granted = consent.answered(nonce, from: bound, at: .seconds(1))
        #expect(granted && consent.address == bound && consent.permits(at: .seconds(1)), "the alternate answered: media goes there")
        granted = consent.answered(nonce, from: mapped, at: .seconds(2))
        #expect(!granted && consent.address == bound, "a second candidate's answer does not take media away from the first")
        #expect(consent.takeChallenge(at: .seconds(2), using: &random) == nil, "no challenges while consent is in force")
        consent.authenticated(from: mapped, at: .seconds(20))
        consent.authenticated(from: bound, at: .seconds(10))
        #expect(consent.permits(at: Timestamp(microseconds: 39_999_999)) && !consent.permits(at: .seconds(40)),
                "consent lasts from packets where media goes, not from the other candidate")
        #expect(consent.grants == 1 && consent.answersRefused == 2)
    }

    @Test func challengesFromAnyAnnouncedAddressAreAnsweredThere() {
        let mapped = UDPAddress(host: "198.51.100.1", port: 61_000), bound = UDPAddress(host: "10.1.0.3", port: 50_000)
        var consent = MediaConsent()
        consent.announce(mapped, alternates: [bound])
        var answers = consent.answers(challengeFrom: victim, at: .seconds(1))
        #expect(!answers, "not announced: a forged source would turn answers on someone else")
        answers = consent.answers(challengeFrom: bound, at: .seconds(1))
        #expect(answers)
        answers = consent.answers(challengeFrom: mapped, at: Timestamp(microseconds: 1_005_000))
        #expect(!answers, "one answer per gap, whichever candidate asks")
        answers = consent.answers(challengeFrom: mapped, at: Timestamp(microseconds: 1_010_000))
        #expect(answers)
    }

    @Test func theSameAddressesAgainKeepConsentWhereItWasGivenAndOthersStartOver() throws {
        let mapped = UDPAddress(host: "198.51.100.1", port: 61_000), bound = UDPAddress(host: "10.1.0.3", port: 50_000)
        var random = SeededRandom(seed: 7)
        var consent = MediaConsent()
        consent.announce(mapped, alternates: [bound])
        let nonce = try #require(consent.takeChallenge(at: .seconds(1), using: &random))
        _ = consent.answered(nonce, from: bound, at: .seconds(1))
        consent.announce(mapped, alternates: [bound])
        #expect(consent.permits(at: .seconds(2)) && consent.address == bound, "announced again: nothing changes")
        consent.announce(mapped)
        #expect(!consent.permits(at: .seconds(2)) && consent.address == mapped && consent.candidates == [mapped],
                "the alternate is gone: what it said counts no more")
        consent.announce(mapped, alternates: [bound])
        consent.move(to: victim, at: .seconds(3))
        #expect(consent.candidates == [victim] && consent.address == victim, "a move leaves only where the datagrams came from")
    }

    /// Seeded challenges, answers and packets, from the peer and from elsewhere, against the
    /// rule written plainly: consent is given by an answer from the announced address with
    /// the nonce of a challenge taken while there was none; it lasts a lifetime after the
    /// last answer or authenticated packet from that address while it was in force.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64]) func followsTheRuleOverRandomEvents(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var nonces = SeededRandom(seed: seed + 100)
        let lifetime = TimeDelta.seconds(2)
        var consent = MediaConsent(address: peer, lifetime: lifetime)
        var last: Timestamp?
        var outstanding: (nonce: UInt128, answered: Bool)?
        var grants = 0
        var time = Timestamp.zero
        func inForce(_ time: Timestamp) -> Bool { last.map { time - $0 < lifetime } ?? false }
        for _ in 0 ..< 3_000 {
            time = time + .milliseconds(Int64(random.next() % 600))
            let fromPeer = random.next() % 3 != 0
            let source = fromPeer ? peer : victim
            switch random.next() % 4 {
            case 0:
                let wasInForce = inForce(time)
                let nonce = consent.takeChallenge(at: time, using: &nonces)
                if wasInForce { #expect(nonce == nil, "no challenge while consent is in force") }
                if let nonce {
                    if let outstanding, !outstanding.answered {
                        #expect(nonce == outstanding.nonce, "sent again until answered")
                    } else {
                        #expect(nonce != outstanding?.nonce, "a new nonce for a new attempt")
                    }
                    outstanding = (nonce, false)
                }
            case 1:
                consent.authenticated(from: source, at: time)
                if fromPeer, inForce(time) { last = max(last ?? time, time) }
            default:
                // An answer: the outstanding nonce or a guess.
                let guess = random.next() % 2 == 0
                let nonce = guess ? UInt128(random.next()) : (outstanding?.nonce ?? 0)
                let granted = consent.answered(nonce, from: source, at: time)
                let matches = fromPeer && outstanding != nil && nonce == outstanding?.nonce
                let expected = matches && outstanding?.answered == false && !inForce(time)
                #expect(granted == expected)
                if expected {
                    grants += 1
                    outstanding?.answered = true
                    last = time
                } else if matches, inForce(time) {
                    last = max(last ?? time, time)
                }
            }
            let probe = time + .milliseconds(Int64(random.next() % 3_000))
            #expect(consent.permits(at: probe) == inForce(probe))
        }
        #expect(consent.grants == grants && grants > 10, "\(grants) grants")
    }
}
