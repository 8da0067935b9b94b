import Foundation

/// A plugin's `plugin.json`: its name, version, plugin API version, library and filters, each
/// filter's parameters declared as data. Read without loading any code, so `validate`,
/// `filters` and `schema` know plugin filters.
///
/// ```json
/// { "name": "filmlab", "version": "1.0.0", "api": 1, "library": "libFilmLab.so",
///   "filters": [ { "name": "crossProcess", "summary": "…",
///                  "parameters": [ { "name": "strength", "type": "number", "min": 0, "max": 1,
///                                    "default": 0.6, "summary": "…" } ] },
///                { "name": "expired", "summary": "…", "parameters": […],
///                  "graph": [ { "id": "cross", "op": "filmlab.crossProcess", "strength": "{strength}" }, … ] } ] }
/// ```
public struct PluginManifest: Sendable {
    /// One filter: the op `<plugin>.<name>`.
    public struct FilterDeclaration: Sendable {
        public let name: String
        public let summary: String
        public let parameters: [ParameterSpec]
        /// For a filter made of other ops (built-ins or this plugin's kernels, by full name):
        /// its nodes. Nil for a kernel of the library.
        public let graph: [JSONValue]?

        public init(name: String, summary: String, parameters: [ParameterSpec], graph: [JSONValue]? = nil) {
            self.name = name
            self.summary = summary
            self.parameters = parameters
            self.graph = graph
        }
    }

    public let name: String
    public let version: String
    /// The plugin table version the library was built for (`WB_PLUGIN_API_VERSION`).
    public let api: Int
    /// The shared library's file, relative to the plugin's folder ("" for a plugin whose
    /// filters are all sub-graphs).
    public let library: String
    public let filters: [FilterDeclaration]
    /// The folder holding `plugin.json`.
    public let folder: String

    public var libraryPath: String { folder + "/" + library }

    /// The manifest in `folder/plugin.json`, or every problem found in it (file:line:col).
    public static func read(folder: String) throws(WorkbenchError) -> PluginManifest {
        let file = folder + "/plugin.json"
        // Both causes are named in the error below, with the file's path.
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: file)) else {
            throw .unreadablePreset(path: file, reason: "no plugin.json in the plugin's folder, or it cannot be read")
        }
        return try PluginManifestDecoder(file: file, folder: folder).decode(Array(data))
    }
}
