import ArgumentParser
import Foundation
import WorkbenchPlugins

/// `workbench plugin remove NAME [--from DIR]`.
struct PluginRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an installed plugin.")

    @Argument(help: "The plugin's name, as workbench plugin list shows it.")
    var name: String

    @Option(help: ArgumentHelp("Remove it from this plugin folder instead of ~/.local/share/workbench/plugins.", valueName: "dir"))
    var from: String?

    func run() throws {
        let root = URL(fileURLWithPath: from ?? PluginSearchPath.userFolder).standardizedFileURL.path
        do {
            let version = try PluginInstaller.remove(name, from: root)
            Terminal.out("Removed \(name)\(version.map { " " + $0 } ?? "") from \(root)")
        } catch {
            Terminal.error("Cannot remove \(name): \(error)")
            throw ExitCode(1)
        }
    }
}
