import Foundation

/// Step 4 of a preset's way to a plan (check): each expanded graph element as a node — its op,
/// id, queue, scope, edges as written, timeouts and parameters, every value checked against the
/// op's declaration. Edges between nodes are `GraphLinker`'s (step 5).
struct NodeCheck {
    let registry: OpRegistry
    let queues: [String]
    let collector: DiagnosticCollector
    /// The preset's folder: files that parameters name without item variables (a watermark's
    /// logo, a CA file, an ICC profile) must be there when the preset is checked, not be found
    /// missing once per item. Nil: not checked.
    var baseDirectory: String?

    static let nodeKeys = ["id", "op", "from", "queue", "scope", "timeout", "retries", "retryDelay", "foreach"]

    /// The nodes of the expanded graph, in its order; each node without `from` reads the one
    /// before it in its scope.
    func check(_ expanded: [GraphRepetition.Expanded]) -> [NodeDraft] {
        var drafts: [NodeDraft] = []
        var previous: [NodeScope: String] = [:]
        // The registry's answer per op name it has no definition for: asking it costs a walk over
        // every refused libvips operation, and a graph may name the same op a million times.
        var unavailable: [String: String?] = [:]
        for (index, element) in expanded.enumerated() {
            guard var draft = node(element.value, index: index, sourceIndex: element.sourceIndex, previous: previous,
                                   unavailable: &unavailable) else { continue }
            draft.copy = element.copy
            previous[draft.scope] = draft.id
            drafts.append(draft)
        }
        return drafts
    }

    private func node(_ value: JSONValue, index: Int, sourceIndex: Int, previous: [NodeScope: String],
                      unavailable: inout [String: String?]) -> NodeDraft? {
        let path = "graph[\(sourceIndex)]"
        guard case .object(let members, let location) = value else {
            collector.error(path, at: value.location, "expected a node object, found \(value.typeName)")
            return nil
        }
        guard let (definition, opName) = op(value, members: members, path: path, location: location, unavailable: &unavailable) else { return nil }
        let spec = definition.spec
        let (id, idLocation) = id(value, default: opName, location: location, path: path)
        let queue = queue(value, default: spec.defaultQueue, path: path)
        let scope = scope(value, path: path)
        var from = from(value, path: path)
        if value["from"] == nil, spec.input != nil, let previousID = previous[scope] {
            // Linear chains need no edges: the previous node of the same scope feeds this one.
            from = [(previousID, location)]
        }
        let timeout = number(value["timeout"], path: join(path, "timeout"), range: 0.001...604_800)
        let retries = retries(value["retries"], path: path)
        let retryDelay = number(value["retryDelay"], path: join(path, "retryDelay"), range: 0...3600)

        let errorsBefore = collector.errorsReported
        let parameters = decodeParameters(members, spec: spec, path: path, nodeLocation: location)
        // Combinations are judged only when every parameter was valid on its own.
        if let check = spec.check, collector.errorsReported == errorsBefore, let problem = check(parameters) {
            // A problem that starts by naming one parameter given (`"colour" takes …`) points at it.
            let named = members.first { problem.hasPrefix("\"\($0.key)\"") }
            collector.error(named.map { join(path, $0.key) } ?? path, at: named?.value.location ?? location, "\(opName): \(problem)")
        }
        return NodeDraft(index: index, sourceIndex: sourceIndex, id: id, idLocation: idLocation, definition: definition, queue: queue,
                         scope: scope, from: from, references: references(members, parameters, spec: spec, location: location),
                         parameters: parameters, timeout: timeout ?? spec.defaultTimeout,
                         retry: NodeRetry(retries: retries ?? 0, delay: retryDelay ?? NodeRetry.none.delay),
                         location: location)
    }

    /// The node's op, or nil after saying why it has none usable.
    private func op(_ value: JSONValue, members: [(key: String, keyLocation: SourceLocation, value: JSONValue)], path: String,
                    location: SourceLocation, unavailable: inout [String: String?]) -> (OpDefinition, String)? {
        guard let opValue = value["op"] else {
            collector.error(path, at: location, "missing required key \"op\"")
            return nil
        }
        guard case .string(let opName, let opLocation) = opValue else {
            collector.error(join(path, "op"), at: opValue.location, "expected an op name, found \(opValue.typeName)")
            return nil
        }
        // Keys too: an encode's `"avif": {…}` names a format as its `"format"` does.
        registry.prepare(opName, words: members.compactMap(\.value.stringValue) + members.map(\.key))
        guard let definition = registry[opName] else {
            let known = unavailable[opName]
            let reason = known ?? registry.unavailableReason(opName)
            if known == nil { unavailable[opName] = .some(reason) }
            if let reason {
                collector.error(join(path, "op"), at: opLocation, "\"\(opName)\" cannot be used in a preset: \(reason)")
                return nil
            }
            let names = registry.names
            collector.error(join(path, "op"), at: opLocation, "unknown op \(DiagnosticCollector.quote(opName))"
                + DidYouMean.hint(for: opName, among: names)
                + (names.count <= 20 ? " (known ops: " + names.joined(separator: ", ") + ")"
                   : " (\"workbench filters\" lists all \(names.count))"))
            return nil
        }
        if definition.spec.isDeprecated {
            collector.warning(join(path, "op"), at: opLocation, "\"\(opName)\" is deprecated in libvips and may be removed; \"workbench filters \(opName)\" says what replaces it")
        }
        return (definition, opName)
    }

    private func id(_ value: JSONValue, default opName: String, location: SourceLocation, path: String) -> (String, SourceLocation) {
        guard let idValue = value["id"] else { return (opName, location) }
        if case .string(let s, let l) = idValue, !s.isEmpty, !s.hasPrefix("@"), !s.contains("[") { return (s, l) }
        collector.error(join(path, "id"), at: idValue.location,
                        "expected a non-empty name without '@' or '[', found \(DiagnosticCollector.describe(idValue))")
        return (opName, location)
    }

    private func queue(_ value: JSONValue, default queue: String, path: String) -> String {
        guard let queueValue = value["queue"] else { return queue }
        if case .string(let s, _) = queueValue, queues.contains(s) { return s }
        let hint = queueValue.stringValue.map { DidYouMean.hint(for: $0, among: queues) } ?? ""
        collector.error(join(path, "queue"), at: queueValue.location,
                        "unknown queue \(DiagnosticCollector.describe(queueValue))" + hint
                        + " (defined: " + queues.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
        return queue
    }

    private func scope(_ value: JSONValue, path: String) -> NodeScope {
        guard let scopeValue = value["scope"] else { return .item }
        if case .string(let s, _) = scopeValue, let parsed = NodeScope(rawValue: s) { return parsed }
        collector.error(join(path, "scope"), at: scopeValue.location,
                        "expected \"item\" or \"run\", found \(DiagnosticCollector.describe(scopeValue))")
        return .item
    }

    /// `from` as written: one id or a list.
    private func from(_ value: JSONValue, path: String) -> [(id: String, location: SourceLocation)] {
        guard let fromValue = value["from"] else { return [] }
        switch fromValue {
        case .string(let s, let l):
            return [(s, l)]
        case .array(let list, _):
            var from: [(id: String, location: SourceLocation)] = []
            for (i, element) in list.enumerated() {
                if case .string(let s, let l) = element { from.append((s, l)) } else {
                    collector.error("\(path).from[\(i)]", at: element.location,
                                    "expected a node id, found \(DiagnosticCollector.describe(element))")
                }
            }
            return from
        default:
            collector.error(join(path, "from"), at: fromValue.location,
                            "expected a node id or a list of node ids, found \(fromValue.typeName)")
            return []
        }
    }

    private func retries(_ value: JSONValue?, path: String) -> Int? {
        guard let value else { return nil }
        guard case .number(let n, true, _) = value, n >= 0, n <= 20 else {
            collector.error(join(path, "retries"), at: value.location,
                            "expected an integer 0…20, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return Int(n)
    }

    /// The node's reference parameters (`"@id"`, `"@id[*]"`) with where each was written.
    private func references(_ members: [(key: String, keyLocation: SourceLocation, value: JSONValue)], _ parameters: ParameterValues,
                            spec: OpSpec, location: SourceLocation) -> [(parameter: String, value: String, location: SourceLocation)] {
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
        return references
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
