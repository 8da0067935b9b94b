/// `--set NODE.PARAM=VALUE`: a node's parameter (or key) changed from the command line, checked
/// like the file's own values. VALUE is JSON when it reads as JSON (`800`, `true`, `[1, 2]`,
/// `"text"`), else the text itself (`--set encode.format=webp`).
public struct PresetOverride: Sendable, Equatable {
    public let node: String
    public let key: String
    public let value: String
    /// As given, for messages.
    public let text: String
    /// A copy's value of its `foreach` variable is changed in the list (see `movingToForeach`);
    /// false for the live page's own scaling of sizes to its preview copies, which concerns
    /// that copy's pixels only.
    public var changesForeachList = true

    /// Parses `NODE.PARAM=VALUE`; nil when it does not have that shape.
    public init?(_ text: String) {
        guard let equals = text.firstIndex(of: "="), let dot = text[..<equals].lastIndex(of: ".") else { return nil }
        let node = String(text[..<dot]), key = String(text[text.index(after: dot)..<equals])
        guard !node.isEmpty, !key.isEmpty else { return nil }
        self.node = node
        self.key = key
        value = String(text[text.index(after: equals)...])
        self.text = text
    }

    /// The value as JSON, positioned on line 0 so diagnostics can tell it came from here.
    func json(index: Int) -> JSONValue {
        let location = SourceLocation(line: 0, column: index + 1)
        // Not JSON is a plain string by design: --set name=photo means the text "photo".
        guard let parsed = try? JSONParser.parse(Array(value.utf8)) else { return .string(value, location) }
        return Self.placed(parsed, at: location)
    }

    private static func placed(_ value: JSONValue, at location: SourceLocation) -> JSONValue {
        switch value {
        case .null: return .null(location)
        case .bool(let b, _): return .bool(b, location)
        case .number(let n, let isInteger, _): return .number(n, isInteger: isInteger, location)
        case .string(let s, _): return .string(s, location)
        case .array(let list, _): return .array(list.map { placed($0, at: location) }, location)
        case .object(let members, _):
            return .object(members.map { (key: $0.key, keyLocation: location, value: placed($0.value, at: location)) }, location)
        }
    }

    /// `graph` with the overrides that name a node as written (by id, or by op when it has no
    /// id) applied to it, and so to every copy `"foreach"` makes of it. The others are returned
    /// by their place in `overrides`: they may name a copy (`resized-480`), which exists only
    /// once the graph is expanded (`applyToCopies`).
    static func applyToWritten(_ overrides: [PresetOverride], to graph: JSONValue?) -> (graph: JSONValue?, left: [Int]) {
        guard !overrides.isEmpty, case .array(var nodes, let location)? = graph else { return (graph, Array(overrides.indices)) }
        var left: [Int] = []
        for (index, override) in overrides.enumerated() {
            var found = false
            for (n, node) in nodes.enumerated() where (node["id"]?.stringValue ?? node["op"]?.stringValue) == override.node {
                found = true
                nodes[n] = override.set(on: node, index: index)
            }
            if !found { left.append(index) }
        }
        return (.array(nodes, location), left)
    }

    /// The overrides `applyToWritten` left, applied to the copies they name; one naming no node
    /// at all is reported with the ids there are (those `validate` and `graph` print).
    static func applyToCopies(_ overrides: [PresetOverride], left: [Int], to nodes: inout [GraphRepetition.Expanded],
                              _ collector: DiagnosticCollector) {
        for index in left {
            let override = overrides[index]
            if let n = nodes.firstIndex(where: { $0.value["id"]?.stringValue == override.node }) {
                nodes[n].value = override.set(on: nodes[n].value, index: index)
                continue
            }
            let ids = nodes.compactMap { $0.value["id"]?.stringValue ?? $0.value["op"]?.stringValue }
            var written: [String] = []
            for node in nodes { if let id = node.copy?.declaredID, !written.contains(id) { written.append(id) } }
            collector.error("", at: SourceLocation(line: 0, column: index + 1),
                            "no node \"\(override.node)\" in the graph" + DidYouMean.hint(for: override.node, among: ids + written)
                            + " (nodes: " + ids.joined(separator: ", ") + ")"
                            + (written.isEmpty ? "" : "; or, for every copy, a node as written: " + written.joined(separator: ", ")))
        }
    }

    /// The overrides among `left` that set a copy's parameter written as its repetition
    /// variable (`--set resized-960.width=1000` where `"width": "{w}"`): that value is the
    /// copy's place in the `foreach` list — it also names the copy and its files — so, as the
    /// live page's Save does, it changes there (`[480, 960, 1920]` → `[480, 1000, 1920]`) and
    /// renames the copy and its files, rather than making `resized-960` write 1000 px images
    /// into `*-960.*`. Returns the written graph with the lists changed, the overrides handled,
    /// and what to tell the user.
    static func movingToForeach(_ overrides: [PresetOverride], left: [Int], copies: [GraphRepetition.Expanded],
                                graph: [JSONValue]) -> (graph: [JSONValue], moved: Set<Int>, notes: [(index: Int, text: String)]) {
        var graph = graph
        var moved = Set<Int>(), notes: [(Int, String)] = []
        for index in left {
            let override = overrides[index]
            guard override.changesForeachList, let copy = copies.first(where: { $0.value["id"]?.stringValue == override.node })?.copy,
                  let variable = copy.variableParameters[override.key], let value = copy.values.first(where: { $0.name == variable }),
                  let n = graph.firstIndex(where: { ($0["id"]?.stringValue ?? $0["op"]?.stringValue) == value.declaredBy }),
                  case .object(var members, let location) = graph[n],
                  let f = members.firstIndex(where: { $0.key == "foreach" }),
                  case .object(var lists, let listsLocation) = members[f].value,
                  let l = lists.firstIndex(where: { $0.key == variable }),
                  case .array(var list, let listLocation) = lists[l].value, list.indices.contains(value.index) else { continue }
            list[value.index] = override.json(index: index)
            lists[l].value = .array(list, listLocation)
            members[f].value = .object(lists, listsLocation)
            graph[n] = .object(members, location)
            moved.insert(index)
            notes.append((index, "\(override.key) of \"\(override.node)\" is {\(variable)}, one value of the \"foreach\" list of \"\(value.declaredBy)\" that also names the copy and its files: \(variable) = \(NodeCopy.text(of: value.json)) becomes \(NodeCopy.text(of: GraphRepetition.jsonText(override.json(index: index)))) there, and every copy made with it is renamed with its files (as the live page's Save does)"))
        }
        return (graph, moved, notes)
    }

    /// `node` with this override's key set (replacing the key's value if it has one).
    private func set(on node: JSONValue, index: Int) -> JSONValue {
        guard case .object(var members, let nodeLocation) = node else { return node }
        members.removeAll { $0.key == key }
        members.append((key: key, keyLocation: SourceLocation(line: 0, column: index + 1), value: json(index: index)))
        return .object(members, nodeLocation)
    }

    /// Diagnostics about overridden values name the `--set` they came from instead of a place in the file.
    static func attribute(_ diagnostics: [Diagnostic], to overrides: [PresetOverride]) -> [Diagnostic] {
        diagnostics.map { diagnostic in
            guard let location = diagnostic.location, location.line == 0, location.column >= 1, location.column <= overrides.count else {
                return diagnostic
            }
            return Diagnostic(diagnostic.severity, file: "--set \(overrides[location.column - 1].text)", path: diagnostic.path,
                              location: nil, message: diagnostic.message)
        }
    }
}
