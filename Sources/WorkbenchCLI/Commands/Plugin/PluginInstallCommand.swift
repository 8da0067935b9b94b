import ArgumentParser
import Foundation
import WorkbenchPlugins

/// `workbench plugin install FILE|DIR [--to DIR]`: checks a plugin whole, then puts it in place.
struct PluginInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install a plugin from a .wbplugin file or a built plugin's folder, after checking it.",
        discussion: """
            Checks the package's checksums, its plugin.json, the plugin API and toolchain, and loads the library in a \
            sandboxed helper as a run would; only then is the plugin put in place, in one rename, replacing an earlier \
            version. Nothing is downloaded.
            """)

    @Argument(help: "A .wbplugin file (from workbench plugin pack) or a folder with plugin.json and the built library.")
    var source: String

    @OptionGroup var destination: PluginFolderOption

    func run() throws {
        let root = destination.root
        do {
            let installed = try PluginInstaller.install(URL(fileURLWithPath: source).standardizedFileURL.path, into: root,
                                                        limits: HelperPool.Limits(output: { Terminal.error($0) }))
            let manifest = installed.manifest
            let filters = manifest.filters.map { "\(manifest.name).\($0.name)" }.joined(separator: ", ")
            let replacing = installed.replaced.map { " (replacing \($0))" } ?? ""
            Terminal.out("Installed \(manifest.name) \(manifest.version) in \(installed.folder)\(replacing): \(filters)")
        } catch {
            Terminal.error("Cannot install \(source); nothing was changed: \(error)")
            throw ExitCode(1)
        }
    }
}
