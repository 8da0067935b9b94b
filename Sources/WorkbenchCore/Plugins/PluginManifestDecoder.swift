/// Reads `plugin.json` strictly, collecting every problem with its line and column.
struct PluginManifestDecoder {
    let file: String
    let folder: String
    private let collector: DiagnosticCollector
    private var declarations: ParameterDeclarations { ParameterDeclarations(collector: collector) }

    init(file: String, folder: String) {
        self.file = file
        self.folder = folder
        collector = DiagnosticCollector(file: file)
    }

    static let keys = ["name", "version", "api", "library", "filters"]
    static let filterKeys = ["name", "summary", "parameters", "graph"]
        /// Plugin names that would shadow built-in ops.
    static let reservedNames = ["vips"]

    func decode(_ bytes: [UInt8]) throws(WorkbenchError) -> PluginManifest {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            collector.error("", at: error.location, "invalid JSON: \(error.message)")
            throw .invalidPreset(collector.diagnostics)
        }
        guard case .object(let members, _) = root else {
            collector.error("", at: root.location, "plugin.json must be a JSON object, found \(root.typeName)")
            throw .invalidPreset(collector.diagnostics)
        }
        collector.rejectUnknownKeys(members, known: Self.keys, path: "", what: "plugin.json")
        let name = declarations.identifier(root["name"], path: "name", at: root.location, what: "the plugin's name (its filters are named <name>.<filter>)")
        if Self.reservedNames.contains(name) { collector.error("name", at: root["name"]?.location, "\"\(name)\" is reserved for built-in ops; choose another name") }
        let version = declarations.string(root["version"], path: "version", at: root.location) ?? ""
        let api = integer(root["api"], path: "api", at: root.location) ?? 0
        // A plugin of sub-graphs only has no library.
        var kernels = true
        if case .array(let list, _)? = root["filters"] { kernels = list.isEmpty || list.contains { $0["graph"] == nil } }
        let library = root["library"] == nil && !kernels ? "" : declarations.string(root["library"], path: "library", at: root.location) ?? ""
        if library.contains("/") || library.hasPrefix(".") {
            collector.error("library", at: root["library"]?.location, "the library is a file name in the plugin's folder, e.g. \"libGlow.so\"")
        }
        var filters: [PluginManifest.FilterDeclaration] = []
        if case .array(let list, _)? = root["filters"] {
            if list.isEmpty { collector.error("filters", at: root["filters"]?.location, "a plugin declares at least one filter") }
            for (i, value) in list.enumerated() {
                if let filter = self.filter(value, path: "filters[\(i)]") {
                    if filters.contains(where: { $0.name == filter.name }) {
                        collector.error("filters[\(i)].name", at: value["name"]?.location, "a second filter named \"\(filter.name)\"")
                    }
                    filters.append(filter)
                }
            }
        } else {
            collector.error("filters", at: root["filters"]?.location ?? root.location, "\"filters\" must be a list of filters")
        }
        if collector.hasErrors { throw .invalidPreset(collector.diagnostics) }
        return PluginManifest(name: name, version: version, api: api, library: library, filters: filters, folder: folder)
    }

    private func filter(_ value: JSONValue, path: String) -> PluginManifest.FilterDeclaration? {
        guard case .object(let members, _) = value else {
            collector.error(path, at: value.location, "a filter is an object with \"name\", \"summary\" and \"parameters\"")
            return nil
        }
        collector.rejectUnknownKeys(members, known: Self.filterKeys, path: path, what: "a filter")
        let name = declarations.identifier(value["name"], path: join(path, "name"), at: value.location, what: "the filter's name")
        let summary = declarations.string(value["summary"], path: join(path, "summary"), at: value.location) ?? ""
        var parameters: [ParameterSpec] = []
        switch value["parameters"] {
        case nil: break
        case .array(let list, _)?:
            for (i, item) in list.enumerated() {
                guard let parameter = declarations.parameter(item, path: join(path, "parameters[\(i)]")) else { continue }
                if parameters.contains(where: { $0.name == parameter.name }) || parameter.name == "isolation" {
                    collector.error(join(path, "parameters[\(i)].name"), at: item["name"]?.location,
                                    "\"\(parameter.name)\" is declared twice (\"isolation\" is every plugin filter's own)")
                }
                parameters.append(parameter)
            }
        case let other?: collector.error(join(path, "parameters"), at: other.location, "\"parameters\" must be a list")
        }
        var graph: [JSONValue]?
        if let value = value["graph"] {
            if case .array(let nodes, _) = value, !nodes.isEmpty {
                for (i, node) in nodes.enumerated() where node["op"]?.stringValue == nil {
                    collector.error(join(path, "graph[\(i)]"), at: node.location, "a node of a sub-graph is an object with an \"op\"")
                }
                graph = nodes
            } else {
                collector.error(join(path, "graph"), at: value.location, "\"graph\" is a list of nodes, as in a preset")
            }
        }
        return PluginManifest.FilterDeclaration(name: name, summary: summary, parameters: parameters, graph: graph)
    }

    private func integer(_ value: JSONValue?, path: String, at location: SourceLocation) -> Int? {
        guard let value else {
            collector.error(path, at: location, "\"\(path)\" is missing")
            return nil
        }
        guard case .number(_, true, _) = value, let i = value.exactInteger else {
            collector.error(path, at: value.location, "expected an integer, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return i
    }

}
