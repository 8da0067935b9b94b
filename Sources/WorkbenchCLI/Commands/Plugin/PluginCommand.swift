import ArgumentParser
import WorkbenchPlugins

/// `workbench plugin`: make, build and list plugins.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Make, build and list plugins: your own filters, written in Swift.",
        subcommands: [PluginNewCommand.self, PluginBuildCommand.self, PluginListCommand.self])
}

/// `workbench plugin-helper FOLDER`: the process an isolated plugin's kernels run in (started by
/// the workbench itself, never by users).
struct PluginHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plugin-helper", shouldDisplay: false)

    @Argument var folder: String

    func run() throws {
        let status = HelperServer.serve(folder: folder)
        if status != 0 { throw ExitCode(status) }
    }
}
