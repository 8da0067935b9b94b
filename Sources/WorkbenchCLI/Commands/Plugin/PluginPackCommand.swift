import ArgumentParser
import Foundation
import WorkbenchPlugins

/// `workbench plugin pack DIR [--to DIR]`: one file to share a built plugin with.
struct PluginPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack a built plugin (plugin.json and its library) into NAME-VERSION.wbplugin, with checksums.",
        discussion: "The file is a tar archive: tar -tf lists it, sha256sum -c checks it. Install it with workbench plugin install FILE.")

    @Argument(help: "The plugin's folder: an installed plugin, or one holding plugin.json beside its built library.")
    var folder: String

    @Option(help: ArgumentHelp("Write the file into this folder (default: the current one).", valueName: "dir"))
    var to: String = "."

    func run() throws {
        do {
            let path = try PluginInstaller.pack(folder: URL(fileURLWithPath: folder).standardizedFileURL.path,
                                                into: URL(fileURLWithPath: to).standardizedFileURL.path)
            Terminal.out("Packed \(path)")
        } catch {
            Terminal.error("Cannot pack \(folder): \(error)")
            throw ExitCode(1)
        }
    }
}
