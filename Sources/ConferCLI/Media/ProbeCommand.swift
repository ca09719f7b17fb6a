import ArgumentParser
import Confer
import ConferMedia
import ConferCodecs
import ConferJobs

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "probe", abstract: "Show what is in a media file.")

    @Argument(help: "The file to look at.")
    var file: String
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        try outputOptions.emit(ProbeReport(file: file, info: try MediaFileInfo.probe(path: file)))
    }
}
