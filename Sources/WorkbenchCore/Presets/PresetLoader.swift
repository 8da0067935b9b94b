import Foundation

/// Reads a preset file and validates it completely before any work starts.
///
/// Every problem found is reported at once, each with the file, the JSON path and line:column.
/// The way from JSON to a plan is seven steps, each a type that hands a value to the next and
/// calls none of them; `decode(json:…)` and `decode(root:…)` run them in order:
/// 1. parse (`JSONParser`): bytes to a `JSONValue` with positions;
/// 2. resolve: `extends` (`PresetInheritance`), `include` (`FilterIncludes`, `PresetFilters`),
///    `--set` on the written graph (`PresetOverride`);
/// 3. expand (`GraphExpansion`): filters composed, `foreach` repeated;
/// 4. check (`NodeCheck`): each element a `NodeDraft`, its parameters coerced;
/// 5. link (`GraphLinker`): edges checked, nodes ordered — a `LinkedGraph`;
/// 6. plan (`GraphPlanner`): cascade, shrink-on-load, the direct path — a `GraphPlan`;
/// 7. bind (`StageBinding`): the `NodeSpec`s with their stages.
public struct PresetLoader: Sendable {
    public let registry: OpRegistry
    /// Nodes left out of the graph once it is expanded, by id (a copy's own id), as if never
    /// written: the live page runs a preset's items without the nodes that gather every item.
    public var leavingOut: Set<String> = []

    static let topLevelKeys = ["$schema", "version", "name", "description", "extends", "include", "inputs", "output", "queues", "filters", "graph", "s3"]

    public init(registry: OpRegistry) {
        self.registry = registry
    }

    /// Loads and validates the preset at `path`; relative inputs resolve against its folder.
    /// `overrides` (`--set`) change node parameters before validation.
    public func load(file path: String, overrides: [PresetOverride] = []) throws(WorkbenchError) -> Preset {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "\(error.localizedDescription)" : "no such file"
            throw .unreadablePreset(path: path, reason: reason)
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        return try load(json: [UInt8](data), file: path, baseDirectory: folder, overrides: overrides)
    }

    /// Validates preset JSON text; `file` is only used in messages.
    public func load(json: [UInt8], file: String, baseDirectory: String, overrides: [PresetOverride] = []) throws(WorkbenchError) -> Preset {
        do {
            return try decode(json: json, file: file, baseDirectory: baseDirectory, overrides: overrides)
        } catch {
            if case .invalidPreset(let diagnostics) = error {
                throw .invalidPreset(PresetOverride.attribute(diagnostics, to: overrides))
            }
            throw error
        }
    }

    private func decode(json: [UInt8], file: String, baseDirectory: String, overrides: [PresetOverride]) throws(WorkbenchError) -> Preset {
        let collector = DiagnosticCollector(file: file)
        var root: JSONValue
        do {
            root = try JSONParser.parse(json)
        } catch {
            collector.error("", at: error.location, "invalid JSON: \(error.message)")
            throw .invalidPreset(collector.diagnostics)
        }
        root = PresetInheritance(loader: PresetLoader(registry: registry), collector: collector).resolve(root, file: file, baseDirectory: baseDirectory)
        // A base that does not stand on its own: its own mistakes say it all.
        if collector.hasErrors { throw .invalidPreset(collector.diagnostics) }
        return try decode(root: root, file: file, baseDirectory: baseDirectory, overrides: overrides, collector: collector)
    }

    /// Decodes a parsed preset whose `extends` are already merged.
    func decode(root: JSONValue, file: String, baseDirectory: String, overrides: [PresetOverride],
                collector: DiagnosticCollector) throws(WorkbenchError) -> Preset {
        guard case .object(let members, _) = root else {
            collector.error("", at: root.location, "a preset must be a JSON object, found \(root.typeName)")
            throw .invalidPreset(collector.diagnostics)
        }
        collector.rejectUnknownKeys(members, known: Self.topLevelKeys, path: "", what: "the preset")

        decodeVersion(root["version"], at: root.location, collector)
        let name = optionalString(root["name"], path: "name", collector)
        let summary = optionalString(root["description"], path: "description", collector)
        let output = optionalString(root["output"], path: "output", collector)
        _ = optionalString(root["$schema"], path: "$schema", collector)
        let inputs = root["inputs"].flatMap { decodeInputs($0, collector) }
        let bucket = root["s3"].flatMap { decodeBucket($0, collector) }
        let queues = decodeQueues(root["queues"], collector)
        // 2. resolve: the included and own filters, `--set` on the graph as written.
        let filters = FilterIncludes(registry: registry, collector: collector)
            .merged(root["include"], own: root["filters"], baseDirectory: baseDirectory)
        let own = PresetFilters(registry: registry, collector: collector).decode(filters)
        let ownFilters = own.values.sorted { $0.name < $1.name }.map { $0.spec(origin: "this preset's filter") }
        let (written, unmatched) = PresetOverride.applyToWritten(overrides, to: root["graph"])
        // 3–7.
        let nodes = graph(written, unmatched: unmatched, own: own, queues: queues, overrides: overrides, baseDirectory: baseDirectory,
                          documentLocation: root.location, collector: collector)
        if collector.hasErrors { throw .invalidPreset(collector.diagnostics) }
        var preset = Preset(file: file, baseDirectory: baseDirectory, name: name, summary: summary, inputs: inputs,
                            output: output, queues: queues, nodes: nodes,
                            warnings: PresetOverride.attribute(collector.diagnostics, to: overrides), filters: ownFilters,
                            bucket: bucket)
        if case .object(let named, _)? = root["queues"] { preset.definedQueues = Set(named.map(\.key)) }
        refuseUnreadableInputs(root["inputs"], of: preset, collector)
        if collector.hasErrors { throw .invalidPreset(collector.diagnostics) }
        return preset
    }

    /// Steps 3 to 7: the graph as written (and resolved) to the nodes the engine runs; empty
    /// once a step has said what is wrong.
    private func graph(_ written: JSONValue?, unmatched: [Int], own: [String: GraphFilter], queues: [QueueSpec], overrides: [PresetOverride],
                       baseDirectory: String, documentLocation: SourceLocation, collector: DiagnosticCollector) -> [NodeSpec] {
        // Plugins' sub-graphs, under the preset's own.
        let filters = Dictionary(registry.graphFilters.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            .merging(own) { _, mine in mine }
        let expanded = GraphExpansion(registry: registry, collector: collector, filters: filters, overrides: overrides)
            .expand(written, left: unmatched, documentLocation: documentLocation)
            .filter { leavingOut.isEmpty || !leavingOut.contains($0.value["id"]?.stringValue ?? $0.value["op"]?.stringValue ?? "") }
        let drafts = NodeCheck(registry: registry, queues: queues.map(\.name), collector: collector, baseDirectory: baseDirectory)
            .check(expanded)
        guard !collector.hasErrors, let linked = GraphLinker(collector: collector).link(drafts) else { return [] }
        return StageBinding.bind(linked, GraphPlanner.plan(linked))
    }

    /// URLs listed for a `read`: refused here, not once per item at run time.
    private func refuseUnreadableInputs(_ inputs: JSONValue?, of preset: Preset, _ collector: DiagnosticCollector) {
        switch inputs {
        case .array(let elements, _)?:
            for (i, element) in elements.enumerated() {
                if let source = element.stringValue, let refusal = preset.refusal(ofInput: source) {
                    collector.error("inputs[\(i)]", at: element.location, refusal)
                }
            }
        case .object(let members, _)?:
            if let bucketInputs = members.first(where: { $0.key == "s3" }), let url = bucketInputs.value.stringValue,
               let refusal = preset.refusal(ofInput: url) {
                collector.error("inputs.s3", at: bucketInputs.value.location, refusal)
            }
            if case .object(let entries, _)? = members.first(where: { $0.key == "map" })?.value {
                for entry in entries {
                    if let source = entry.value.stringValue, let refusal = preset.refusal(ofInput: source) {
                        collector.error("inputs.map.\(entry.key)", at: entry.value.location, refusal)
                    }
                }
            }
        default:
            break
        }
    }

    private func decodeVersion(_ value: JSONValue?, at location: SourceLocation, _ c: DiagnosticCollector) {
        guard let value else {
            c.error("version", at: location, "missing required key \"version\"; add \"version\": 1")
            return
        }
        guard case .number(let n, true, _) = value, n == 1 else {
            c.error("version", at: value.location,
                    "unsupported version \(DiagnosticCollector.describe(value)); this workbench reads version 1")
            return
        }
    }

    private func optionalString(_ value: JSONValue?, path: String, _ c: DiagnosticCollector) -> String? {
        guard let value else { return nil }
        guard case .string(let s, _) = value else {
            c.error(path, at: value.location, "expected a string, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return s
    }

    private func decodeInputs(_ value: JSONValue, _ c: DiagnosticCollector) -> InputSource? {
        switch value {
        case .array(let elements, _):
            var list: [String] = []
            for (i, element) in elements.enumerated() {
                guard case .string(let s, _) = element, !s.isEmpty else {
                    c.error("inputs[\(i)]", at: element.location,
                            "expected a URL or path string, found \(DiagnosticCollector.describe(element))")
                    continue
                }
                list.append(s)
            }
            return .list(list)
        case .object(let members, let location):
            if let bucket = members.first(where: { $0.key == "s3" }) {
                c.rejectUnknownKeys(members, known: ["s3", "glob"], path: "inputs", what: "inputs from a bucket")
                guard case .string(let url, _) = bucket.value, url.lowercased().hasPrefix("s3://"), url.count > 5 else {
                    c.error("inputs.s3", at: bucket.value.location,
                            "expected an s3://bucket/prefix/ URL, found \(DiagnosticCollector.describe(bucket.value))")
                    return nil
                }
                var glob: String?
                if let member = members.first(where: { $0.key == "glob" }) {
                    guard case .string(let pattern, _) = member.value, !pattern.isEmpty else {
                        c.error("inputs.glob", at: member.value.location,
                                "expected a glob over the keys below the prefix (e.g. \"**/*.jpg\"), found \(DiagnosticCollector.describe(member.value))")
                        return nil
                    }
                    glob = pattern
                }
                return .bucket(url, glob: glob)
            }
            let kinds = ["glob", "file", "map"]
            c.rejectUnknownKeys(members, known: kinds + ["s3"], path: "inputs", what: "inputs")
            let present = members.filter { kinds.contains($0.key) }
            guard present.count == 1, let member = present.first else {
                c.error("inputs", at: location, "give exactly one of \"glob\", \"file\", \"map\" or \"s3\" (found \(present.count))")
                return nil
            }
            let path = "inputs.\(member.key)"
            if member.key == "map" {
                guard case .object(let entries, _) = member.value else {
                    c.error(path, at: member.value.location,
                            "expected an object of name → URL, found \(DiagnosticCollector.describe(member.value))")
                    return nil
                }
                var map: [InputSource.MapEntry] = []
                for entry in entries {
                    guard !entry.key.isEmpty else {
                        c.error(path, at: entry.keyLocation, "an item name may not be empty")
                        continue
                    }
                    guard case .string(let url, _) = entry.value, !url.isEmpty else {
                        c.error(join(path, entry.key), at: entry.value.location,
                                "expected a URL or path string, found \(DiagnosticCollector.describe(entry.value))")
                        continue
                    }
                    map.append(.init(name: entry.key, source: url))
                }
                return .map(map)
            }
            guard case .string(let s, _) = member.value, !s.isEmpty else {
                c.error(path, at: member.value.location,
                        "expected a non-empty string, found \(DiagnosticCollector.describe(member.value))")
                return nil
            }
            return member.key == "glob" ? .glob(s) : .file(s)
        default:
            c.error("inputs", at: value.location,
                    "expected a list of URLs/paths or an object with \"glob\", \"file\" or \"map\", found \(value.typeName)")
            return nil
        }
    }

    private func decodeBucket(_ value: JSONValue, _ c: DiagnosticCollector) -> BucketSettings? {
        guard case .object(let members, _) = value else {
            c.error("s3", at: value.location, "expected an object with \"endpoint\", \"region\" or \"pathStyle\", found \(value.typeName)")
            return nil
        }
        c.rejectUnknownKeys(members, known: ["endpoint", "region", "pathStyle"], path: "s3", what: "S3 settings (credentials come from the environment or ~/.aws, never from a preset)")
        var settings = BucketSettings()
        settings.endpoint = optionalString(value["endpoint"], path: "s3.endpoint", c)
        if let endpoint = settings.endpoint, !(endpoint.lowercased().hasPrefix("http://") || endpoint.lowercased().hasPrefix("https://")) {
            c.error("s3.endpoint", at: value["endpoint"]?.location ?? value.location, "expected an http:// or https:// URL, e.g. \"https://minio.example.com:9000\"")
        }
        settings.region = optionalString(value["region"], path: "s3.region", c)
        if let style = value["pathStyle"] {
            guard case .bool(let flag, _) = style else {
                c.error("s3.pathStyle", at: style.location, "expected true or false, found \(style.typeName)")
                return settings
            }
            settings.pathStyle = flag
        }
        return settings
    }

    private func decodeQueues(_ value: JSONValue?, _ c: DiagnosticCollector) -> [QueueSpec] {
        var queues = QueueSpec.defaults
        guard let value else { return queues }
        guard case .object(let members, _) = value else {
            c.error("queues", at: value.location, "expected an object of queue name → settings, found \(value.typeName)")
            return queues
        }
        for member in members {
            let path = "queues.\(member.key)"
            guard case .object(let settings, _) = member.value else {
                c.error(path, at: member.value.location,
                        "expected an object with \"concurrency\" and \"qos\", found \(member.value.typeName)")
                continue
            }
            c.rejectUnknownKeys(settings, known: ["concurrency", "qos"], path: path, what: "a queue")
            let existing = queues.first { $0.name == member.key }
            var concurrency = existing?.concurrency ?? .fixed(1)
            var qos = existing?.qos ?? .utility
            if let v = member.value["concurrency"] {
                switch v {
                case .string("auto", _):
                    concurrency = .auto
                case .number(let n, true, _) where n >= 1 && n <= 1024:
                    concurrency = .fixed(Int(n))
                default:
                    c.error(join(path, "concurrency"), at: v.location,
                            "expected an integer 1…1024 or \"auto\", found \(DiagnosticCollector.describe(v))")
                }
            }
            if let v = member.value["qos"] {
                if case .string(let s, _) = v, let parsed = QoS(rawValue: s) {
                    qos = parsed
                } else {
                    let names = QoS.allCases.map(\.rawValue)
                    let hint = v.stringValue.map { DidYouMean.hint(for: $0, among: names) } ?? ""
                    c.error(join(path, "qos"), at: v.location,
                            "expected one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
                            + ", found \(DiagnosticCollector.describe(v))" + hint)
                }
            }
            let spec = QueueSpec(name: member.key, concurrency: concurrency, qos: qos)
            if let i = queues.firstIndex(where: { $0.name == member.key }) { queues[i] = spec } else { queues.append(spec) }
        }
        return queues
    }
}
