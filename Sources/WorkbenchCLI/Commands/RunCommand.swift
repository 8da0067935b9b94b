import ArgumentParser
import Foundation
import WorkbenchCore

/// `workbench run`: runs a preset over its inputs or the inputs given.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a preset over its inputs, or over the INPUTs given instead.",
        discussion: "Ctrl-C stops the run: running stages stop, nothing half-written is left, and the exit status is 130.")

    @Argument(help: "The preset file.")
    var preset: String

    @Argument(help: "URLs, image files or folders to process instead of the preset's inputs.")
    var inputs: [String] = []

    @Option(name: .long, help: ArgumentHelp("The output root; write paths are relative to it.", valueName: "dir"))
    var out: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let logger = Terminal.startLogging(output)
        let loaded: Preset
        let items: [Item]
        let root: OutputRoot
        do {
            loaded = try PresetLoader(registry: BuiltinOps.registry).load(file: preset)
            for warning in loaded.warnings { Terminal.error(warning.description) }
            let cwd = FileManager.default.currentDirectoryPath
            items = inputs.isEmpty ? try InputExpansion.items(of: loaded) : try InputExpansion.expand(inputs, relativeTo: cwd)
            root = try OutputRoot(out ?? loaded.output ?? cwd)
        } catch {
            Terminal.error(error.description)
            throw ExitCode(ExitStatus.badPreset)
        }

        let token = CancellationToken()
        let trap = SignalTrap(token: token)
        let reporter = LineReporter(quiet: output.quiet, verbose: output.verbose, outputRoot: root.path)
        let summary = await PresetRun(preset: loaded, items: items, output: root, cancellation: token, logger: logger)
            .run(onEvent: reporter.handle)
        withExtendedLifetime(trap) {}
        if summary.exitCode != ExitStatus.ok { throw ExitCode(summary.exitCode) }
    }
}
