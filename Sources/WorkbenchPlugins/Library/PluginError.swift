/// Why a plugin cannot be used, or why one of its kernels failed.
public enum PluginError: Error, Sendable, CustomStringConvertible {
    /// Found but refused (bad manifest, other API version or toolchain, entry point missing or
    /// not matching the manifest, a name clash); `reason` says what to do.
    case refused(plugin: String, folder: String, reason: String)
    /// No plugin of this name on the search path.
    case notFound(plugin: String, searched: [String])
    /// The plugin's helper process failed (crashed, timed out, could not start).
    case helperFailed(plugin: String, filter: String, reason: String)
    /// A plugin package (`.wbplugin`) or folder that cannot be packed, installed or removed.
    case badPackage(String)

    public var description: String {
        switch self {
        case .refused(let plugin, let folder, let reason):
            return "plugin \"\(plugin)\" (\(folder)) is refused: \(reason)"
        case .notFound(let plugin, let searched):
            return "no plugin \"\(plugin)\" in " + (searched.isEmpty ? "any plugin folder" : searched.joined(separator: ", "))
                + " (add a folder with --plugin-path or WORKBENCH_PLUGIN_PATH)"
        case .helperFailed(let plugin, let filter, let reason):
            return "\(plugin).\(filter): \(reason)"
        case .badPackage(let reason):
            return reason
        }
    }
}
