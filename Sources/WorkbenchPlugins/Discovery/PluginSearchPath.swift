import Foundation

/// Where plugins are looked for, in order: `--plugin-path` folders, `WORKBENCH_PLUGIN_PATH`
/// (colon-separated), then `~/.local/share/workbench/plugins`. Each folder holds plugin folders
/// (each with a `plugin.json`), or is itself one.
public struct PluginSearchPath: Sendable {
    public let folders: [String]

    public init(folders: [String]) { self.folders = folders }

    /// The user's folder, where `workbench plugin build` installs by default.
    public static var userFolder: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/workbench/plugins"
    }

    /// The search path from the command line's folders and the environment.
    public static func standard(commandLine: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> PluginSearchPath {
        let fromEnvironment = (environment["WORKBENCH_PLUGIN_PATH"] ?? "").split(separator: ":").map(String.init)
        let all = (commandLine + fromEnvironment).map { URL(fileURLWithPath: $0).standardizedFileURL.path } + [userFolder]
        var seen = Set<String>()
        return PluginSearchPath(folders: all.filter { seen.insert($0).inserted })
    }

    /// Every folder holding a `plugin.json`, in search order.
    func pluginFolders() -> [String] {
        let files = FileManager.default
        var found: [String] = []
        for folder in folders {
            if files.fileExists(atPath: folder + "/plugin.json") {
                found.append(folder)
                continue
            }
            // A search folder that cannot be listed holds no plugins we could load.
            let children = ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            for child in children where !child.hasPrefix(".") && files.fileExists(atPath: folder + "/" + child + "/plugin.json") {
                found.append(folder + "/" + child)
            }
        }
        return found
    }
}
