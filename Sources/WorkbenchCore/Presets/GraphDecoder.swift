import Foundation

/// Decodes the `graph` section: each node's keys and parameters. `GraphLinker` checks the edges.
struct GraphDecoder {
    let registry: OpRegistry
    let queues: [String]
    let collector: DiagnosticCollector
    /// The preset's own filters (named sub-graphs).
    var filters: [String: GraphFilter] = [:]
    /// `--set` values (and the live page's), applied to the nodes they name.
    var overrides: [PresetOverride] = []
    /// The preset's folder: files that parameters name without item variables (a watermark's
    /// logo, a CA file, an ICC profile) must be there when the preset is checked, not be found
    /// missing once per item. Nil: not checked.
    var baseDirectory: String?

    static let nodeKeys = ["id", "op", "from", "queue", "scope", "timeout", "retries", "retryDelay", "foreach"]

    func decode(_ written: JSONValue?, documentLocation: SourceLocation) -> [NodeSpec] {
        let (value, unmatched) = PresetOverride.applyToWritten(overrides, to: written)
        guard let value else {
            collector.error("graph", at: documentLocation, "missing required key \"graph\" (a list of nodes)")
            return []
        }
        guard case .array(let elements, let location) = value else {
            collector.error("graph", at: value.location, "expected a list of nodes, found \(value.typeName)")
            return []
        }
        if elements.isEmpty {
            collector.error("graph", at: location, "the graph is empty; add at least a source node such as {\"op\": \"read\"}")
            return []
        }
        var drafts: [NodeDraft] = []
        var previous: [NodeScope: String] = [:]
        var left = unmatched
        var written = elements
        if !left.isEmpty {
            // Expanded once aside to see the copies: a `--set` on a copy's variable changes the
            // written list, and the graph is expanded (and its mistakes said) from that.
            let moves = PresetOverride.movingToForeach(overrides, left: left, copies: expand(elements, DiagnosticCollector(file: collector.file)),
                                                       graph: elements)
            left.removeAll { moves.moved.contains($0) }
            written = moves.graph
            for note in moves.notes { collector.warning("", at: SourceLocation(line: 0, column: note.index + 1), note.text) }
        }
        var expanded = expand(written, collector)
        PresetOverride.applyToCopies(overrides, left: left, to: &expanded, collector)
        var unavailable: [String: String?] = [:]
        for (index, element) in expanded.enumerated() {
            var draft = decodeNode(element.value, index: index, sourceIndex: element.sourceIndex, previous: previous,
                                   unavailable: &unavailable)
            draft?.copy = element.copy
            if let draft { previous[draft.scope] = draft.id }
            if let draft { drafts.append(draft) }
        }
        guard !collector.hasErrors else { return [] }
        return GraphLinker(collector: collector).link(drafts)
    }

    private func expand(_ elements: [JSONValue], _ collector: DiagnosticCollector) -> [GraphRepetition.Expanded] {
        let composed = PresetFilters(registry: registry, collector: collector).expand(elements.enumerated().map { ($1, $0) }, filters)
        return GraphRepetition(registry: registry, collector: collector).expand(composed)
    }

    /// `unavailable` remembers the registry's answer per op name it has no definition for:
    /// asking it costs a walk over every refused libvips operation, and a graph may name the
    /// same op a million times.
    private func decodeNode(_ value: JSONValue, index: Int, sourceIndex: Int, previous: [NodeScope: String],
                            unavailable: inout [String: String?]) -> NodeDraft? {
        let path = "graph[\(sourceIndex)]"
        guard case .object(let members, let location) = value else {
            collector.error(path, at: value.location, "expected a node object, found \(value.typeName)")
            return nil
        }
        guard let opValue = value["op"] else {
            collector.error(path, at: location, "missing required key \"op\"")
            return nil
        }
        guard case .string(let opName, let opLocation) = opValue else {
            collector.error(join(path, "op"), at: opValue.location, "expected an op name, found \(opValue.typeName)")
            return nil
        }
        registry.prepare(opName, words: members.compactMap(\.value.stringValue))
        let definition = registry[opName]
        if definition == nil {
            let known = unavailable[opName]
            let reason = known ?? registry.unavailableReason(opName)
            if known == nil { unavailable[opName] = .some(reason) }
            if let reason {
                collector.error(join(path, "op"), at: opLocation, "\"\(opName)\" cannot be used in a preset: \(reason)")
                return nil
            }
        }
        guard let definition else {
            let names = registry.names
            collector.error(join(path, "op"), at: opLocation, "unknown op \(DiagnosticCollector.quote(opName))"
                + DidYouMean.hint(for: opName, among: names)
                + (names.count <= 20 ? " (known ops: " + names.joined(separator: ", ") + ")"
                   : " (\"workbench filters\" lists all \(names.count))"))
            return nil
        }
        let spec = definition.spec
        if spec.isDeprecated {
            collector.warning(join(path, "op"), at: opLocation, "\"\(opName)\" is deprecated in libvips and may be removed; \"workbench filters \(opName)\" says what replaces it")
        }

        var id = opName
        var idLocation = location
        if let idValue = value["id"] {
            if case .string(let s, let l) = idValue, !s.isEmpty, !s.hasPrefix("@"), !s.contains("[") {
                id = s
                idLocation = l
            } else {
                collector.error(join(path, "id"), at: idValue.location,
                                "expected a non-empty name without '@' or '[', found \(DiagnosticCollector.describe(idValue))")
            }
        }

        var queue = spec.defaultQueue
        if let queueValue = value["queue"] {
            if case .string(let s, _) = queueValue, queues.contains(s) {
                queue = s
            } else {
                let hint = queueValue.stringValue.map { DidYouMean.hint(for: $0, among: queues) } ?? ""
                collector.error(join(path, "queue"), at: queueValue.location,
                                "unknown queue \(DiagnosticCollector.describe(queueValue))" + hint
                                + " (defined: " + queues.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
            }
        }

        var scope = NodeScope.item
        if let scopeValue = value["scope"] {
            if case .string(let s, _) = scopeValue, let parsed = NodeScope(rawValue: s) {
                scope = parsed
            } else {
                collector.error(join(path, "scope"), at: scopeValue.location,
                                "expected \"item\" or \"run\", found \(DiagnosticCollector.describe(scopeValue))")
            }
        }

        var from: [(id: String, location: SourceLocation)] = []
        if let fromValue = value["from"] {
            switch fromValue {
            case .string(let s, let l):
                from = [(s, l)]
            case .array(let list, _):
                for (i, element) in list.enumerated() {
                    if case .string(let s, let l) = element { from.append((s, l)) } else {
                        collector.error("\(path).from[\(i)]", at: element.location,
                                        "expected a node id, found \(DiagnosticCollector.describe(element))")
                    }
                }
            default:
                collector.error(join(path, "from"), at: fromValue.location,
                                "expected a node id or a list of node ids, found \(fromValue.typeName)")
            }
        } else if spec.input != nil, let previousID = previous[scope] {
            // Linear chains need no edges: the previous node of the same scope feeds this one.
            from = [(previousID, location)]
        }

        let timeout = number(value["timeout"], path: join(path, "timeout"), range: 0.001...604_800)
        let retries = value["retries"].flatMap { v -> Int? in
            guard case .number(let n, true, _) = v, n >= 0, n <= 20 else {
                collector.error(join(path, "retries"), at: v.location,
                                "expected an integer 0…20, found \(DiagnosticCollector.describe(v))")
                return nil
            }
            return Int(n)
        }
        let retryDelay = number(value["retryDelay"], path: join(path, "retryDelay"), range: 0...3600)

        let errorsBefore = collector.errorsReported
        let parameters = decodeParameters(members, spec: spec, path: path, nodeLocation: location)
        // Combinations are judged only when every parameter was valid on its own.
        if let check = spec.check, collector.errorsReported == errorsBefore, let problem = check(parameters) {
            // A problem that starts by naming one parameter given (`"colour" takes …`) points at it.
            let named = members.first { problem.hasPrefix("\"\($0.key)\"") }
            collector.error(named.map { join(path, $0.key) } ?? path, at: named?.value.location ?? location, "\(opName): \(problem)")
        }
        var references: [(parameter: String, value: String, location: SourceLocation)] = []
        for parameter in spec.parameters {
            switch parameter.type {
            case .reference, .fanIn, .imageOrMatrix, .references:
                let member = members.first { spec.parameter(named: $0.key)?.name == parameter.name }
                if let text = parameters.string(parameter.name) {
                    references.append((parameter.name, text, member?.value.location ?? location))
                } else if case .references = parameter.type, let list = parameters.list(parameter.name),
                          case .array(let elements, _)? = member?.value {
                    for (value, element) in zip(list, elements) {
                        if case .string(let text) = value { references.append((parameter.name, text, element.location)) }
                    }
                }
            default:
                break
            }
        }
        return NodeDraft(index: index, sourceIndex: sourceIndex, id: id, idLocation: idLocation, definition: definition, queue: queue,
                         scope: scope, from: from, references: references, parameters: parameters,
                         timeout: timeout ?? spec.defaultTimeout,
                         retry: NodeRetry(retries: retries ?? 0, delay: retryDelay ?? NodeRetry.none.delay),
                         location: location)
    }

    private func number(_ value: JSONValue?, path: String, range: ClosedRange<Double>) -> Double? {
        guard let value else { return nil }
        guard case .number(let n, _, _) = value, range.contains(n) else {
            collector.error(path, at: value.location,
                            "expected \(ParameterType.double(range).summary) (seconds), found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return n
    }

    private func decodeParameters(_ members: [(key: String, keyLocation: SourceLocation, value: JSONValue)],
                                  spec: OpSpec, path: String, nodeLocation: SourceLocation) -> ParameterValues {
        var values: [String: ParameterValue] = [:]
        var seen: [String: String] = [:]
        let known = Self.nodeKeys + spec.parameters.flatMap { [$0.name] + $0.aliases }
        for member in members where !Self.nodeKeys.contains(member.key) {
            guard let parameter = spec.parameter(named: member.key) else {
                collector.error(join(path, member.key), at: member.keyLocation,
                                "unknown parameter \(DiagnosticCollector.quote(member.key)) for op \"\(spec.name)\""
                                + DidYouMean.hint(for: member.key, among: known)
                                + (spec.parameters.isEmpty ? " (it takes no parameters)"
                                   : " (parameters: " + spec.parameters.map { "\"\($0.name)\"" }.joined(separator: ", ") + ")"))
                continue
            }
            if let other = seen[parameter.name] {
                collector.error(join(path, member.key), at: member.keyLocation,
                                "\"\(member.key)\" and \"\(other)\" are the same parameter; give only one")
                continue
            }
            seen[parameter.name] = member.key
            if parameter.isDeprecated {
                collector.warning(join(path, member.key), at: member.keyLocation,
                                  "parameter \"\(member.key)\" of \"\(spec.name)\" is deprecated and may be removed")
            }
            if let notice = parameter.givenNotice {
                collector.warning(join(path, member.key), at: member.keyLocation, notice)
            }
            if let other = parameter.unusedWith, members.contains(where: { $0.key == other }) {
                collector.warning(join(path, member.key), at: member.keyLocation,
                                  "\"\(member.key)\" is unused when \"\(other)\" is given; remove one")
            }
            if let value = parameter.type.coerce(member.value, path: join(path, member.key), collector) {
                values[parameter.name] = value
                if let problem = missingFile(value, of: parameter) {
                    collector.error(join(path, member.key), at: member.value.location, problem)
                }
            }
        }
        for parameter in spec.parameters where values[parameter.name] == nil && seen[parameter.name] == nil {
            if parameter.isRequired {
                collector.error(join(path, parameter.name), at: nodeLocation,
                                "missing required parameter \"\(parameter.name)\" for op \"\(spec.name)\" (\(parameter.type.summary): \(parameter.summary))")
            } else if let defaultValue = parameter.defaultValue, parameter.passesDefault {
                values[parameter.name] = defaultValue
            }
        }
        return ParameterValues(values)
    }

    /// Why a file a parameter names cannot be read when the preset is checked, or nil.
    private func missingFile(_ value: ParameterValue, of parameter: ParameterSpec) -> String? {
        guard let baseDirectory, case .presetFile(let builtins) = parameter.type, case .string(let name) = value,
              !builtins.contains(name), !ItemText.namesVariables(name) else { return nil }
        let full = baseDirectory + "/" + name
        var info = stat()
        guard stat(full, &info) == 0 else {
            return "\"\(name)\" is not in the preset's folder \"\(baseDirectory)\" (\(String(cString: strerror(errno)))); put the file there or correct its name"
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "\"\(name)\" in the preset's folder is not a file" }
        guard access(full, R_OK) == 0 else { return "\"\(name)\" in the preset's folder cannot be read (\(String(cString: strerror(errno))))" }
        return nil
    }
}

/// A node as written, before its edges are checked.
struct NodeDraft {
    /// Position in the expanded graph (copies of a repeated node each have their own).
    let index: Int
    /// Position of the node as written in the file.
    let sourceIndex: Int
    let id: String
    let idLocation: SourceLocation
    let definition: OpDefinition
    let queue: String
    let scope: NodeScope
    var from: [(id: String, location: SourceLocation)]
    /// Reference parameters: name, `"@id"` or `"@id[*]"`, position.
    let references: [(parameter: String, value: String, location: SourceLocation)]
    let parameters: ParameterValues
    let timeout: Double?
    let retry: NodeRetry
    let location: SourceLocation
    var copy: NodeCopy?
    var path: String { "graph[\(sourceIndex)]" }

    /// Upstream node ids: `from` first, then referenced ids.
    var upstreamIDs: [String] {
        from.map(\.id) + references.map { GraphLinker.referencedID($0.value) }
    }
}
