/// A preset's own filters: named sub-graphs with declared parameters, used as ops.
///
/// ```json
/// "filters": {
///   "polaroid": {
///     "summary": "A white border and a slight tilt.",
///     "parameters": [ { "name": "border", "type": "integer", "min": 0, "max": 200, "default": 24, "summary": "…" } ],
///     "graph": [ { "id": "frame", "op": "vips.embed", "x": "{border}", … }, { "id": "tilt", "op": "rotate", "angle": 2 } ]
///   }
/// }
/// ```
///
/// A node `{ "id": "p", "op": "polaroid", "border": 30 }` becomes the filter's nodes, named
/// `p.frame`, `p.tilt`, with `{border}` replaced by 30 (checked against its declaration first);
/// the first takes the node's input, and whatever reads `p` reads the last. `foreach` and
/// `scope` on the node apply to the whole sub-graph.
struct PresetFilters {
    
    let registry: OpRegistry
    let collector: DiagnosticCollector

    static let nodeKeys = ["id", "op", "from", "scope", "foreach"]

    /// The `filters` section, by name.
    func decode(_ value: JSONValue?) -> [String: GraphFilter] {
        guard let value else { return [:] }
        guard case .object(let members, _) = value else {
            collector.error("filters", at: value.location, "\"filters\" is an object of names to sub-graphs")
            return [:]
        }
        var filters: [String: GraphFilter] = [:]
        let declarations = ParameterDeclarations(collector: collector)
        for member in members {
            let path = join("filters", member.key)
            if registry[member.key] != nil {
                collector.error(path, at: member.keyLocation, "\"\(member.key)\" is already an op; give the filter another name")
                continue
            }
            guard case .object(let keys, _) = member.value else {
                collector.error(path, at: member.value.location, "a filter is an object with \"summary\", \"parameters\" and \"graph\"")
                continue
            }
            collector.rejectUnknownKeys(keys, known: ["summary", "parameters", "graph"], path: path, what: "a filter")
            var parameters: [ParameterSpec] = []
            if case .array(let list, _)? = member.value["parameters"] {
                for (i, item) in list.enumerated() {
                    if let parameter = declarations.parameter(item, path: join(path, "parameters[\(i)]")) { parameters.append(parameter) }
                }
            }
            guard case .array(let graph, _)? = member.value["graph"], !graph.isEmpty else {
                collector.error(join(path, "graph"), at: member.value["graph"]?.location ?? member.value.location, "a filter needs a \"graph\" of nodes")
                continue
            }
            filters[member.key] = GraphFilter(name: member.key, summary: member.value["summary"]?.stringValue ?? "", parameters: parameters, graph: graph)
        }
        return filters
    }

    /// The graph with every use of a filter replaced by the filter's nodes (filters may use
    /// filters, eight deep at most).
    func expand(_ elements: [(value: JSONValue, sourceIndex: Int)], _ filters: [String: GraphFilter], depth: Int = 0) -> [(value: JSONValue, sourceIndex: Int)] {
        guard !filters.isEmpty else { return elements }
        var result: [(value: JSONValue, sourceIndex: Int)] = []
        var aliases: [String: String] = [:]  // a filter node's id → its last inner node's id
        for (element, sourceIndex) in elements {
            let retargeted = Self.retarget(element, aliases)
            guard let op = retargeted["op"]?.stringValue, let filter = filters[op], case .object(let members, let location) = retargeted else {
                result.append((retargeted, sourceIndex))
                continue
            }
            let path = "graph[\(sourceIndex)]"
            guard depth < 8 else {
                collector.error(join(path, "op"), at: retargeted["op"]?.location, "filters use each other more than 8 deep (a loop?)")
                continue
            }
            let outerID = retargeted["id"]?.stringValue ?? op
            collector.rejectUnknownKeys(members, known: Self.nodeKeys + filter.parameters.map(\.name), path: path, what: "the filter \"\(op)\"")
            var binding: [String: JSONValue] = [:]
            for parameter in filter.parameters {
                if let given = retargeted[parameter.name] {
                    // Checked here, as the user wrote it; "{w}" of a foreach is checked in each copy.
                    if !Self.isVariable(given) { _ = parameter.type.coerce(given, path: join(path, parameter.name), collector) }
                    binding[parameter.name] = given
                } else if let value = parameter.defaultValue {
                    binding[parameter.name] = JSONValue(value, at: location)
                } else if parameter.isRequired {
                    collector.error(join(path, parameter.name), at: location, "missing required parameter \"\(parameter.name)\" of filter \"\(op)\" (\(parameter.type.summary))")
                }
            }
            let innerIDs = filter.graph.map { $0["id"]?.stringValue ?? $0["op"]?.stringValue ?? "" }
            var inner: [(value: JSONValue, sourceIndex: Int)] = []
            for (i, node) in filter.graph.enumerated() {
                guard case .object(var keys, let nodeLocation) = GraphRepetition.substitute(node, binding) else { continue }
                keys = keys.map { key in
                    (key.key, key.keyLocation, key.key == "from" || Self.isReference(key.value) ? Self.prefixed(key.value, outerID, innerIDs) : key.value)
                }
                keys.removeAll { $0.key == "id" }
                keys.insert(("id", nodeLocation, .string("\(outerID).\(innerIDs[i])", nodeLocation)), at: 0)
                if i == 0 {
                    for key in ["from", "foreach"] { if let value = retargeted[key] { keys.append((key, location, value)) } }
                }
                if let scope = retargeted["scope"], node["scope"] == nil { keys.append(("scope", location, scope)) }
                inner.append((.object(keys, nodeLocation), sourceIndex))
            }
            aliases[outerID] = "\(outerID).\(innerIDs.last ?? "")"
            result += expand(inner, filters, depth: depth + 1)
        }
        return result
    }

    private static func isVariable(_ value: JSONValue) -> Bool {
        guard case .string(let s, _) = value else { return false }
        return s.hasPrefix("{") && s.hasSuffix("}") && !s.dropFirst().dropLast().contains("{")
    }

    private static func isReference(_ value: JSONValue) -> Bool {
        if case .string(let s, _) = value { return s.hasPrefix("@") }
        if case .array(let list, _) = value { return list.contains(where: isReference) }
        return false
    }

    /// Inner ids (in `from` or `"@id"`) made `outer.id`.
    private static func prefixed(_ value: JSONValue, _ outer: String, _ inner: [String]) -> JSONValue {
        switch value {
        case .string(let s, let l):
            let reference = s.hasPrefix("@"), id = reference ? GraphLinker.referencedID(s) : s
            guard inner.contains(id) else { return value }
            return .string(reference ? "@\(outer).\(id)" + s.dropFirst(1 + id.count) : "\(outer).\(id)", l)
        case .array(let list, let l): return .array(list.map { prefixed($0, outer, inner) }, l)
        default: return value
        }
    }

    /// `from` and `"@id"` naming a filter node pointed at its last inner node.
    private static func retarget(_ element: JSONValue, _ aliases: [String: String]) -> JSONValue {
        guard !aliases.isEmpty, case .object(let members, let location) = element else { return element }
        func map(_ value: JSONValue, ids: Bool) -> JSONValue {
            switch value {
            case .string(let s, let l):
                if s.hasPrefix("@") {
                    let id = GraphLinker.referencedID(s)
                    return aliases[id].map { .string("@" + $0 + s.dropFirst(1 + id.count), l) } ?? value
                }
                return ids ? aliases[s].map { .string($0, l) } ?? value : value
            case .array(let list, let l): return .array(list.map { map($0, ids: ids) }, l)
            default: return value
            }
        }
        return .object(members.map { ($0.key, $0.keyLocation, map($0.value, ids: $0.key == "from")) }, location)
    }
}
