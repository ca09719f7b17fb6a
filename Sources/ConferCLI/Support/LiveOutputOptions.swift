import ArgumentParser

/// What the live media commands (`send`, `receive`, `netsim`) print: a summary or `--json` at
/// the end as every command does, or with `--events` one JSON object per line as they run,
/// ending with the report.
struct LiveOutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON object per line on stdout as it runs (each second's figures), the report last (instead of --json).")
    var events = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if events && output.json { throw ValidationError("--events ends with the report as its last line; leave out --json") }
    }

    /// Whether progress on stderr is silenced.
    var quiet: Bool { output.quiet }

    /// The printer of `--events` (it prints nothing without).
    func printer() -> EventPrinter { EventPrinter(json: events, quiet: output.quiet) }

    /// A progress printer that writes to stderr, or one that stays silent.
    func progress(_ label: String) -> ProgressPrinter { output.progress(label) }

    /// Prints `report` at the end: as the `ended` event with `fields`, or as a summary or JSON.
    func finish<R: CommandReport>(_ report: R, printer: EventPrinter, _ fields: [String: Any] = [:]) throws {
        if events {
            var object = fields
            object["report"] = EventPrinter.encoded(report)
            printer.print("ended", object)
        } else {
            try output.emit(report)
        }
    }
}
