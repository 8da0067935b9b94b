import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchPlugins

/// `workbench plugin build DIR [--to DIR]`: builds a plugin package in release and installs its
/// manifest and library, then loads it in a helper to check that the workbench accepts it.
struct PluginBuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build a plugin package in release and install plugin.json and its library into the plugin folder.")

    @Argument(help: "The plugin's package folder (with Package.swift and plugin.json).")
    var folder: String

    @OptionGroup var destination: PluginFolderOption

    func run() throws {
        let package = URL(fileURLWithPath: folder).standardizedFileURL
        let manifest: PluginManifest
        do {
            manifest = try PluginManifest.read(folder: package.path)
        } catch {
            if case .invalidPreset(let diagnostics) = error {
                Terminal.error("plugin.json has \(diagnostics.count) error\(diagnostics.count == 1 ? "" : "s"); nothing was built:")
                for diagnostic in diagnostics { Terminal.error(diagnostic.description) }
            } else {
                Terminal.error(error.description)
            }
            throw ExitCode(ExitStatus.badPreset)
        }
        Terminal.error("Building \(manifest.name) \(manifest.version) in release (swift build -c release)…")
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "-c", "release", "--package-path", package.path]
        build.standardOutput = FileHandle.standardError
        do {
            try build.run()
        } catch {
            Terminal.error("Cannot run swift: \(error.localizedDescription) (is the Swift toolchain on PATH?)")
            throw ExitCode(1)
        }
        build.waitUntilExit()
        guard build.terminationStatus == 0 else {
            Terminal.error("The build of \(package.path) failed (see above); nothing was installed.")
            throw ExitCode(1)
        }
        let library = package.appendingPathComponent(".build/release").appendingPathComponent(manifest.library)
        guard FileManager.default.fileExists(atPath: library.path) else {
            Terminal.error("The build made no \(manifest.library): plugin.json's \"library\" must name the package's dynamic library product (lib<Product>.so, with type: .dynamic).")
            throw ExitCode(1)
        }
        let root = destination.root
        // Checked in a helper, as a run would, before it is put in place.
        let installed: PluginInstaller.Installed
        do {
            installed = try PluginInstaller.install(manifest, library: library.path, into: root,
                                                    limits: HelperPool.Limits(output: { Terminal.error($0) }))
        } catch {
            Terminal.error("Built, but not installed: \(error)")
            throw ExitCode(1)
        }
        let filters = manifest.filters.map { "\(manifest.name).\($0.name)" }.joined(separator: ", ")
        Terminal.out("Installed \(manifest.name) \(manifest.version) in \(installed.folder): \(filters)")
    }
}
