import ArgumentParser
@main struct ConferCommand: ParsableCommand { static let configuration = CommandConfiguration(commandName: "confer") ; func run() {} }
