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

    @Option(help: ArgumentHelp("Install into this plugin folder instead of ~/.local/share/workbench/plugins.", valueName: "dir"))
    var to: String?

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
        let root = URL(fileURLWithPath: to ?? PluginSearchPath.userFolder).standardizedFileURL
        let installed: URL
        do {
            installed = try install(manifest, library: library, into: root)
        } catch {
            Terminal.error("Cannot install into \(root.path): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        // The workbench's own check, as a run would make it: in a helper process.
        let catalogue = PluginCatalogue(searchPath: PluginSearchPath(folders: [installed.path]))
        defer { catalogue.shutdown() }
        do {
            try catalogue.prepare(ops: manifest.filters.filter { $0.graph == nil }.map { ("\(manifest.name).\($0.name)", false) })
        } catch {
            Terminal.error("Installed, but the workbench refuses it: \(error)")
            throw ExitCode(1)
        }
        let filters = manifest.filters.map { "\(manifest.name).\($0.name)" }.joined(separator: ", ")
        Terminal.out("Installed \(manifest.name) \(manifest.version) in \(installed.path): \(filters)")
    }

    /// Copies manifest and library into `root/<name>`, replacing an earlier install in one rename.
    private func install(_ manifest: PluginManifest, library: URL, into root: URL) throws -> URL {
        let files = FileManager.default
        try files.createDirectory(at: root, withIntermediateDirectories: true)
        let target = root.appendingPathComponent(manifest.name)
        let staging = root.appendingPathComponent(".\(manifest.name).installing-\(getpid())")
        try? files.removeItem(at: staging)
        try files.createDirectory(at: staging, withIntermediateDirectories: true)
        try files.copyItem(at: URL(fileURLWithPath: manifest.folder).appendingPathComponent("plugin.json"),
                           to: staging.appendingPathComponent("plugin.json"))
        try files.copyItem(at: library, to: staging.appendingPathComponent(manifest.library))
        if files.fileExists(atPath: target.path) {
            let old = root.appendingPathComponent(".\(manifest.name).old-\(getpid())")
            try files.moveItem(at: target, to: old)
            try files.moveItem(at: staging, to: target)
            try? files.removeItem(at: old)
        } else {
            try files.moveItem(at: staging, to: target)
        }
        return target
    }
}
