import WorkbenchCore
import WorkbenchVips

/// Every plugin found on the search path: its manifest read (no code loaded), or why it is
/// refused. Its filters are ops named `<plugin>.<filter>`, offered to presets through `provider`.
public final class PluginCatalogue: Sendable {
    /// One plugin folder found.
    public struct Entry: Sendable {
        public let folder: String
        /// Nil when the manifest could not be read (see `refusal`).
        public let manifest: PluginManifest?
        /// Why it cannot be used, or nil.
        public let refusal: String?
        /// The name presets use (the folder's name when the manifest is unreadable).
        public var name: String { manifest?.name ?? String(folder.split(separator: "/").last ?? "") }
    }

    public let entries: [Entry]
    public let searchPath: PluginSearchPath
    /// Plugins whose kernels run in the workbench's own process (`--trust-plugin`).
    public let trusted: Set<String>
    let isolation: HelperPool

    public init(searchPath: PluginSearchPath, trusted: Set<String> = [], limits: HelperPool.Limits = .init()) {
        self.searchPath = searchPath
        self.trusted = trusted
        isolation = HelperPool(limits: limits)
        var entries: [Entry] = []
        var firstFolder: [String: String] = [:]
        for folder in searchPath.pluginFolders() {
            do throws(WorkbenchError) {
                let manifest = try PluginManifest.read(folder: folder)
                var refusal: String?
                if manifest.api != PluginLibrary.apiVersion {
                    refusal = "plugin.json says plugin API \(manifest.api); this workbench runs \(PluginLibrary.apiVersion): rebuild it against this workbench's kit"
                } else if let first = firstFolder[manifest.name] {
                    refusal = "another plugin named \"\(manifest.name)\" comes first on the search path (\(first)); rename one"
                }
                if refusal == nil { firstFolder[manifest.name] = folder }
                entries.append(Entry(folder: folder, manifest: manifest, refusal: refusal))
            } catch {
                let reason: String
                if case .invalidPreset(let diagnostics) = error {
                    reason = diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "\n")
                } else {
                    reason = "\(error)"
                }
                entries.append(Entry(folder: folder, manifest: nil, refusal: reason))
            }
        }
        self.entries = entries
    }

    /// The usable plugin named `name`.
    func plugin(_ name: String) -> PluginManifest? {
        entries.first { $0.refusal == nil && $0.manifest?.name == name }?.manifest
    }

    /// Plugin filters as ops, for the op registry.
    public var provider: OpProvider {
        OpProvider(claims: { [self] name in
            guard let dot = name.firstIndex(of: ".") else { return false }
            return entries.contains { $0.name == name[..<dot] }
        }, names: { [self] in
            entries.filter { $0.refusal == nil }.flatMap { entry in
                entry.manifest?.filters.filter { $0.graph == nil }.map { "\(entry.name).\($0.name)" } ?? []
            }
        }, definition: { [self] name in
            definition(name)
        }, unavailable: { [self] in
            entries.compactMap { entry in
                // A refused plugin whose name a usable one carries hides nothing.
                guard let refusal = entry.refusal, plugin(entry.name) == nil else { return nil }
                return (entry.name + ".*", "plugin \"\(entry.name)\" (\(entry.folder)) is refused: \(refusal)")
            }
        }, graphs: { [self] in
            entries.filter { $0.refusal == nil }.flatMap { entry -> [GraphFilter] in
                guard let manifest = entry.manifest else { return [] }
                return manifest.filters.compactMap { filter in
                    filter.graph.map { GraphFilter(name: "\(manifest.name).\(filter.name)",
                                                   summary: filter.summary + " (plugin \(manifest.name) \(manifest.version))",
                                                   parameters: filter.parameters, graph: $0) }
                }
            }
        })
    }

    static let isolationParameter = ParameterSpec(
        "isolation", .choice(["process", "none"]), default: .string("process"),
        "\"process\": the kernel runs in a helper process, so a crash or a hang fails only the items in flight; \"none\": in the workbench's own process, at full speed, where a crash takes the run down (also --trust-plugin NAME).")

    private func definition(_ name: String) -> OpDefinition? {
        guard let dot = name.firstIndex(of: "."), let manifest = plugin(String(name[..<dot])),
              let filter = manifest.filters.first(where: { $0.name == name[name.index(after: dot)...] && $0.graph == nil }) else { return nil }
        let trusted = trusted.contains(manifest.name)
        return KernelTableFilter.define(name, filter.summary + " (plugin \(manifest.name) \(manifest.version))",
                                        filter.parameters + [Self.isolationParameter]) { [isolation] values, context in
            if trusted || values.word(Self.isolationParameter.name) == "none" {
                return try PluginLibrary.load(manifest).makeKernel(filter, values)
            }
            return try isolation.table(manifest, filter, values, item: context.item.name, cancellation: context.cancellation)
        }
    }

    /// Ends the helper processes kept for the run.
    public func shutdown() { isolation.shutdown() }

    /// Stops every isolated kernel at once (their regions fail as cancelled, their helpers
    /// end): for a run being interrupted, where a region in a helper could take long.
    public func cancel() { isolation.cancel() }

    /// Loads (in process) or probes (in a helper) the libraries of the plugins `preset` uses,
    /// each as its node's `isolation` says, so a run that cannot use them does not start.
    public func prepare(for preset: Preset) throws(PluginError) {
        try prepare(ops: preset.nodes.map { ($0.op.name, $0.parameters.word(Self.isolationParameter.name) == "none") })
    }

    /// Loads (in process) or probes (in a helper) the libraries of the plugins `ops` use.
    public func prepare(ops: [(name: String, inProcess: Bool)]) throws(PluginError) {
        for (op, inProcess) in ops {
            guard let dot = op.firstIndex(of: ".") else { continue }
            let name = String(op[..<dot])
            guard let manifest = plugin(name) else {
                if let entry = entries.first(where: { $0.name == name }), let refusal = entry.refusal {
                    throw .refused(plugin: name, folder: entry.folder, reason: refusal)
                }
                continue
            }
            if inProcess || trusted.contains(name) {
                _ = try PluginLibrary.load(manifest)
            } else {
                try isolation.probe(manifest)
            }
        }
    }
}
