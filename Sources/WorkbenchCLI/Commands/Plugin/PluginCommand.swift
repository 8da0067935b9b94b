import ArgumentParser
import WorkbenchPlugins

/// `workbench plugin`: make, build, list, pack, install and remove plugins.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Make, build, list, pack, install and remove plugins: your own filters, in Swift, C or Rust.",
        subcommands: [PluginNewCommand.self, PluginBuildCommand.self, PluginListCommand.self, PluginPackCommand.self,
                      PluginInstallCommand.self, PluginRemoveCommand.self])
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
