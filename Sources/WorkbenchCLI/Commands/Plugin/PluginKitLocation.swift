import Foundation
import WorkbenchPlugins

/// Where the plugin kit (`Plugins/Kit`: the C header and the Swift kit) is, for `plugin new`.
enum PluginKitLocation {
    /// `given`, else `WORKBENCH_KIT`, else `share/workbench/kit` beside the executable's folder,
    /// else `Plugins/Kit` in a folder above the executable (a build inside the repository).
    static func find(given: String?) -> URL? {
        let files = FileManager.default
        func isKit(_ url: URL) -> Bool { files.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
            && files.fileExists(atPath: url.appendingPathComponent("Sources/CKernel/include/workbench_kernel.h").path) }
        if let given { return isKit(URL(fileURLWithPath: given)) ? URL(fileURLWithPath: given).standardizedFileURL : nil }
        if let variable = ProcessInfo.processInfo.environment["WORKBENCH_KIT"], isKit(URL(fileURLWithPath: variable)) {
            return URL(fileURLWithPath: variable).standardizedFileURL
        }
        // Without /proc, the path the program was started by is the next best guess.
        let executable = URL(fileURLWithPath: (try? files.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var folder = executable.deletingLastPathComponent()
        let installed = folder.deletingLastPathComponent().appendingPathComponent("share/workbench/kit")
        if isKit(installed) { return installed }
        for _ in 0..<8 {
            let candidate = folder.appendingPathComponent("Plugins/Kit")
            if isKit(candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// Copies the kit's sources (not build products) to `destination`.
    static func copy(_ kit: URL, to destination: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in ["Package.swift", "Sources"] {
            try files.copyItem(at: kit.appendingPathComponent(name), to: destination.appendingPathComponent(name))
        }
    }

    /// The user's plugin folder with `~` for the home folder, for messages.
    static var userPluginsDisplay: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
        let folder = PluginSearchPath.userFolder
        return !home.isEmpty && folder.hasPrefix(home) ? "~" + folder.dropFirst(home.count) : folder
    }
}
