/// The version of the plugin interface. A plugin built against another version is refused.
///
/// There is no library evolution across the boundary, so any change to a public type of this
/// module bumps it.
public let workbenchPluginABIVersion: Int32 = 1

/// The name of the C symbol every plugin exports; it returns the plugin's ABI version.
public let workbenchPluginABISymbol = "workbench_plugin_abi_version"

/// What a plugin says about itself when it is loaded.
public struct PluginManifest: Sendable, Equatable {
    /// The plugin's name; its filters are named `<name>.<filter>`.
    public let name: String
    public let version: String
    public let filters: [String]

    public init(name: String, version: String, filters: [String]) {
        self.name = name
        self.version = version
        self.filters = filters
    }
}
