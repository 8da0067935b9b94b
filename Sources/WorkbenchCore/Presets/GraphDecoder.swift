/// Decodes and checks the `graph` section: nodes, their parameters and their edges.
struct GraphDecoder {
    let registry: OpRegistry
    let queues: [String]
    let collector: DiagnosticCollector

    static let nodeKeys = ["id", "op", "from", "queue", "scope"]

    /// A node as written, before edges are checked.
    private struct Draft {
        let index: Int
        let id: String
        let idLocation: SourceLocation
        let definition: OpDefinition
        let queue: String
        var from: [(id: String, location: SourceLocation)]
        let parameters: ParameterValues
        let location: SourceLocation
        var path: String { "graph[\(index)]" }
    }

    func decode(_ value: JSONValue?, documentLocation: SourceLocation) -> [NodeSpec] {
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
        var drafts: [Draft] = []
        var previousID: String?
        for (index, element) in elements.enumerated() {
            let draft = decodeNode(element, index: index, previousID: previousID)
            previousID = draft?.id ?? element["id"]?.stringValue ?? element["op"]?.stringValue
            if let draft { drafts.append(draft) }
        }
        guard !collector.hasErrors else { return [] }
        return link(drafts)
    }

    private func decodeNode(_ value: JSONValue, index: Int, previousID: String?) -> Draft? {
        let path = "graph[\(index)]"
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
        guard let definition = registry[opName] else {
            collector.error(join(path, "op"), at: opLocation, "unknown op \"\(opName)\""
                + DidYouMean.hint(for: opName, among: registry.names) + " (known ops: " + registry.names.joined(separator: ", ") + ")")
            return nil
        }
        let spec = definition.spec

        var id = opName
        var idLocation = location
        if let idValue = value["id"] {
            if case .string(let s, let l) = idValue, !s.isEmpty, !s.hasPrefix("@") {
                id = s
                idLocation = l
            } else {
                collector.error(join(path, "id"), at: idValue.location,
                                "expected a non-empty name not starting with '@', found \(DiagnosticCollector.describe(idValue))")
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

        if let scopeValue = value["scope"] {
            if case .string("item", _) = scopeValue {
                // The default; nothing to do.
            } else if case .string("run", _) = scopeValue {
                collector.error(join(path, "scope"), at: scopeValue.location,
                                "run-scope nodes are not supported by this version yet; remove \"scope\" to run the node per item")
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
        } else if spec.input != nil, let previousID {
            from = [(previousID, location)]
        }

        let parameters = decodeParameters(members, spec: spec, path: path, nodeLocation: location)
        return Draft(index: index, id: id, idLocation: idLocation, definition: definition, queue: queue,
                     from: from, parameters: parameters, location: location)
    }

    private func decodeParameters(_ members: [(key: String, keyLocation: SourceLocation, value: JSONValue)],
                                  spec: OpSpec, path: String, nodeLocation: SourceLocation) -> ParameterValues {
        var values: [String: ParameterValue] = [:]
        var seen: [String: String] = [:]
        let known = Self.nodeKeys + spec.parameters.flatMap { [$0.name] + $0.aliases }
        for member in members where !Self.nodeKeys.contains(member.key) {
            guard let parameter = spec.parameter(named: member.key) else {
                collector.error(join(path, member.key), at: member.keyLocation,
                                "unknown parameter \"\(member.key)\" for op \"\(spec.name)\""
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
            if let value = ParameterCoercion.coerce(member.value, to: parameter.type, path: join(path, member.key), collector) {
                values[parameter.name] = value
            }
        }
        for parameter in spec.parameters where values[parameter.name] == nil && seen[parameter.name] == nil {
            if parameter.isRequired {
                collector.error(join(path, parameter.name), at: nodeLocation,
                                "missing required parameter \"\(parameter.name)\" for op \"\(spec.name)\" (\(parameter.type.summary): \(parameter.summary))")
            } else if let defaultValue = parameter.defaultValue {
                values[parameter.name] = defaultValue
            }
        }
        return ParameterValues(values)
    }

    /// Checks ids and edges, orders the nodes so upstream comes first, and binds the stages.
    private func link(_ drafts: [Draft]) -> [NodeSpec] {
        var byID: [String: Draft] = [:]
        var duplicates = Set<Int>()
        for draft in drafts {
            if let first = byID[draft.id] {
                duplicates.insert(draft.index)
                collector.error(join(draft.path, "id"), at: draft.idLocation,
                                "duplicate node id \"\(draft.id)\" (also \(first.path)); give each node its own \"id\"")
            } else {
                byID[draft.id] = draft
            }
        }
        // A duplicate's edges would only repeat the duplicate-id error in other words.
        for draft in drafts where !duplicates.contains(draft.index) {
            let spec = draft.definition.spec
            if spec.input == nil, !draft.from.isEmpty {
                collector.error(join(draft.path, "from"), at: draft.from[0].location,
                                "\"\(spec.name)\" is a source op and reads the item itself; remove \"from\"")
                continue
            }
            guard let expected = spec.input else { continue }
            if draft.from.isEmpty {
                collector.error(draft.path, at: draft.location,
                                "\"\(spec.name)\" needs \(expected.article) from an upstream node, but nothing comes before it; "
                                + "start the graph with \"read\" or \"download\"")
                continue
            }
            if draft.from.count > 1 {
                collector.error(join(draft.path, "from"), at: draft.from[1].location,
                                "\"\(spec.name)\" takes one input, but \(draft.from.count) are listed")
            }
            for edge in draft.from {
                guard let upstream = byID[edge.id] else {
                    collector.error(join(draft.path, "from"), at: edge.location, "no node has the id \"\(edge.id)\""
                                    + DidYouMean.hint(for: edge.id, among: drafts.map(\.id)))
                    continue
                }
                if upstream.id == draft.id {
                    collector.error(join(draft.path, "from"), at: edge.location, "a node cannot read from itself")
                } else if upstream.definition.spec.output != expected {
                    collector.error(join(draft.path, "from"), at: edge.location,
                                    "\"\(spec.name)\" needs \(expected.article), but \"\(upstream.id)\" (\(upstream.definition.spec.name)) produces \(upstream.definition.spec.output.article)")
                }
            }
        }
        guard !collector.hasErrors else { return [] }
        guard let ordered = topologicalOrder(drafts, byID: byID) else { return [] }

        let consumed = Set(drafts.flatMap { $0.from.map(\.id) })
        for draft in ordered where !consumed.contains(draft.id) && draft.definition.spec.output != .file {
            collector.warning(draft.path, at: draft.location,
                              "the result of \"\(draft.id)\" is not used by any node; add a \"write\" after it to keep it")
        }
        return ordered.map { draft in
            NodeSpec(id: draft.id, op: draft.definition.spec, queue: draft.queue, from: draft.from.map(\.id),
                     parameters: draft.parameters, stage: draft.definition.makeStage(draft.parameters), path: draft.path)
        }
    }

    /// Kahn's algorithm, stable in file order; reports the nodes on a cycle.
    private func topologicalOrder(_ drafts: [Draft], byID: [String: Draft]) -> [Draft]? {
        var remaining = Dictionary(uniqueKeysWithValues: drafts.map { ($0.id, $0.from.count) })
        var order: [Draft] = []
        var done = Set<String>()
        while order.count < drafts.count {
            guard let next = drafts.first(where: { !done.contains($0.id) && remaining[$0.id] == 0 }) else {
                let stuck = drafts.filter { !done.contains($0.id) }
                collector.error(join(stuck[0].path, "from"), at: stuck[0].location,
                                "the graph has a cycle through " + stuck.map { "\"\($0.id)\"" }.joined(separator: ", "))
                return nil
            }
            order.append(next)
            done.insert(next.id)
            for draft in drafts where draft.from.contains(where: { $0.id == next.id }) {
                remaining[draft.id, default: 0] -= draft.from.filter { $0.id == next.id }.count
            }
        }
        return order
    }
}
