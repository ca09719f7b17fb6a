import Testing
import ArgumentParser
@testable import ConferCLI
import ConferJobs
import ConferMedia

/// Which errors thrown by a command's `run()` `confer` reports as a wrong option (exit 64),
/// and how it names the command whose help to read.
@Suite struct UsageErrorTests {
    @Test func aJobRefusingItsOptionsIsAUsageError() {
        let error = JobError(.invalidOptions, "a meeting has 1…64 participants, not 0")
        #expect(ConferCommand.usageError(error, in: MeetingCommand.self)
                == "Error: a meeting has 1…64 participants, not 0\n  See 'confer meeting --help' for the options.")
        #expect(ConferCommand.usageError(error, in: MixCommand.self)?.hasSuffix("See 'confer mix --help' for the options.") == true)
    }

    @Test func aValidationErrorFromRunPointsToTheCommandNotTheRoot() {
        #expect(ConferCommand.usageError(ValidationError("give --secret or --secret-file"), in: ServeCommand.self)
                == "Error: give --secret or --secret-file\n  See 'confer serve --help' for the options.")
        #expect(ConferCommand.usageError(ValidationError("x"), in: RoomsCommand.Kick.self)?.hasSuffix("See 'confer rooms kick --help' for the options.") == true)
    }

    @Test func commandsAreNamedAsUsersTypeThem() {
        #expect(ConferCommand.path(of: ConferCommand.self) == "confer")
        #expect(ConferCommand.path(of: MeetingCommand.self) == "confer meeting")
        #expect(ConferCommand.path(of: RoomsCommand.List.self) == "confer rooms list")
    }

    @Test func otherFailuresAreNot() {
        for kind in [JobErrorKind.unsupportedFormat, .invalidInput, .io, .internalFailure] {
            #expect(ConferCommand.usageError(JobError(kind, "x"), in: MeetingCommand.self) == nil, "\(kind)")
        }
        #expect(ConferCommand.usageError(KindedError(OtherErrorKind.invalidOptions, "x"), in: MeetingCommand.self) == nil,
                "only a job's kind counts, not another error's case of the same name")
    }
}

/// A kind enum with an `invalidOptions` case that is not ``JobErrorKind``.
private enum OtherErrorKind: Hashable, Sendable { case invalidOptions }
