import Foundation

/// `"foreach"`: a node repeated over values, before the graph is decoded.
///
/// `{ "id": "thumb", "op": "thumbnail", "width": "{w}", "foreach": { "w": [480, 960] } }` becomes
/// `thumb-480` and `thumb-960`. Each copy has `{w}` replaced in every string it holds (a string
/// that is exactly `"{w}"` becomes the value itself, so numbers stay numbers), and its id is the
/// written one with the values appended (or with `{w}` replaced, when the id uses it). A node
/// downstream of a repeated node — by `from`, by the implicit chain, or by a reference — is
/// repeated with it, with the same variables, so `{w}` works in its parameters and path
/// templates too; its own `foreach` multiplies. Copies keep the source positions of the node
/// they come from, for diagnostics.
struct GraphRepetition {
    let registry: OpRegistry
    let collector: DiagnosticCollector

    /// One variable of a repetition, its values in file order, and the written node whose
    /// `foreach` lists them.
    typealias Variable = (name: String, values: [JSONValue], declaredBy: String)

    /// A node of the expanded graph, the index of the node it was written as, and, for a
    /// copy, what it is a copy of.
    struct Expanded {
        var value: JSONValue
        let sourceIndex: Int
        var copy: NodeCopy? = nil
    }

    private struct Copy {
        let id: String
        let binding: [String: JSONValue]
    }

    static let combinationLimit = 1000

    func expand(_ elements: [(value: JSONValue, sourceIndex: Int)]) -> [Expanded] {
        var copies: [String: [Copy]] = [:]         // written id → its copies
        var variables: [String: [Variable]] = [:]  // written id → the variables it repeats over
        var previous: [NodeScope: String] = [:]
        var scopes: [String: NodeScope] = [:]       // written id → its scope
        var result: [Expanded] = []
        for (element, index) in elements {
            guard case .object(var members, let location) = element else {
                result.append(Expanded(value: element, sourceIndex: index))
                continue
            }
            let path = "graph[\(index)]"
            let op = element["op"]?.stringValue ?? ""
            let writtenID = element["id"]?.stringValue ?? op
            let scope = NodeScope(rawValue: element["scope"]?.stringValue ?? "item") ?? .item
            scopes[writtenID] = scope
            // Where an item's node takes a list of references: "@id[*]" of another item node
            // reads every copy of it, and the node is not repeated with it (where it takes a
            // fan-in, "[*]" is every item's, and the linker says a fan-in is the run's); one
            // "@id" of a repeated node is read a copy at a time, seldom what a node collecting
            // files or images means, so it is warned of.
            let spec = registry[op]?.spec
            for (i, member) in members.enumerated() where scope == .item {
                guard case .references? = spec?.parameter(named: member.key)?.type,
                      case .string(let s, let at) = member.value, s.hasPrefix("@") else { continue }
                if s.hasSuffix("[*]") {
                    members[i].value = Self.everyCopy(in: member.value, gathered: { scopes[$0] == .item }, copies: copies)
                } else if let repeated = copies[GraphLinker.referencedID(s)], repeated.count > 1 {
                    collector.warning(join(path, member.key), at: at,
                                      "\"\(s)\" is one copy at a time of a node repeated \(repeated.count) times, so this node is repeated with it; to read every copy at once, write \"\(s)[*]\"")
                }
            }
            let (upstream, chained) = Self.upstream(of: .object(members, location), members: members, input: registry[op]?.spec.input != nil,
                                                    before: previous[scope])
            var own: [Variable] = []
            if let foreach = element["foreach"] {
                own = decodeForeach(foreach, path: join(path, "foreach"), declaredBy: writtenID)
                members.removeAll { $0.key == "foreach" }
            }
            let all = inherited(upstream.flatMap { variables[$0] ?? [] }, own: own, at: element["foreach"]?.location, path: path)
            previous[scope] = writtenID
            guard !all.isEmpty else {
                variables[writtenID] = []
                result.append(Expanded(value: .object(members, location), sourceIndex: index))
                continue
            }
            let combinations = all.reduce(1) { $0 * max($1.values.count, 1) }
            guard combinations <= Self.combinationLimit else {
                collector.error(join(path, "foreach"), at: element["foreach"]?.location ?? location,
                                "\(combinations) copies of this node; at most \(Self.combinationLimit)")
                continue
            }
            variables[writtenID] = all
            var made: [Copy] = []
            for binding in Self.bindings(all) {
                let (id, copy) = Self.copy(members, of: element, writtenID: writtenID, variables: all, binding: binding,
                                           upstream: chained ? upstream.first : nil, copies: copies, location: location)
                made.append(Copy(id: id, binding: binding))
                result.append(Expanded(value: .object(copy, location), sourceIndex: index,
                                       copy: Self.copy(of: writtenID, members: members, variables: all, binding: binding)))
            }
            copies[writtenID] = made
        }
        return result
    }

    /// `"@id[*]"` of a node in the item's own scope as the list of its copies (`["@id-480",
    /// "@id-960"]`, or `["@id"]` when it is not repeated); any other value as it is.
    private static func everyCopy(in value: JSONValue, gathered: (String) -> Bool, copies: [String: [Copy]]) -> JSONValue {
        guard case .string(let s, let location) = value, s.hasPrefix("@"), s.hasSuffix("[*]") else { return value }
        let id = GraphLinker.referencedID(s)
        guard gathered(id) else { return value }
        let ids = copies[id].map { $0.map(\.id) } ?? [id]
        return .array(ids.map { .string("@" + $0, location) }, location)
    }

    /// The nodes a node reads as written — `from`, else the implicit chain from `before` (the
    /// node before it in its scope, for an op with an input); then its references — and
    /// whether it reads by that chain.
    private static func upstream(of element: JSONValue, members: [(key: String, keyLocation: SourceLocation, value: JSONValue)],
                                 input: Bool, before: String?) -> (ids: [String], chained: Bool) {
        var upstream: [String] = []
        switch element["from"] {
        case .string(let s, _)?: upstream = [s]
        case .array(let list, _)?: upstream = list.compactMap(\.stringValue)
        case nil: if input, let before { upstream = [before] }
        default: break
        }
        let chained = element["from"] == nil && input && before != nil
        upstream += members.compactMap { member -> String? in
            guard case .string(let s, _) = member.value, s.hasPrefix("@") else { return nil }
            return GraphLinker.referencedID(s)
        }
        if case .array(let list, _)? = element["in"] ?? nil {
            upstream += list.compactMap { $0.stringValue }.filter { $0.hasPrefix("@") }.map(GraphLinker.referencedID)
        }
        return (upstream, chained)
    }

    /// The variables a node repeats over: those of repeated upstream nodes (in order, each
    /// once), then its own; one of its own already repeating upstream is a mistake.
    private func inherited(_ upstream: [Variable], own: [Variable], at location: SourceLocation?, path: String) -> [Variable] {
        var all: [Variable] = []
        for variable in upstream where !all.contains(where: { $0.name == variable.name }) { all.append(variable) }
        for variable in own {
            if all.contains(where: { $0.name == variable.name }) {
                collector.error(join(path, "foreach"), at: location, "\"\(variable.name)\" already repeats upstream of this node; use another name")
            } else {
                all.append(variable)
            }
        }
        return all
    }

    /// One copy's id and members: every string with the binding's values, its id, and every
    /// upstream copy it reads the one with the same values (`chainedFrom`: the node it reads
    /// by the implicit chain, which the copy names in a `from`).
    private static func copy(_ members: [(key: String, keyLocation: SourceLocation, value: JSONValue)], of element: JSONValue,
                             writtenID: String, variables: [Variable], binding: [String: JSONValue], upstream chainedFrom: String?,
                             copies: [String: [Copy]], location: SourceLocation)
        -> (id: String, members: [(key: String, keyLocation: SourceLocation, value: JSONValue)]) {
        var copy = members.map { (key: $0.key, keyLocation: $0.keyLocation, value: substitute($0.value, binding)) }
        let id = writtenID.contains("{")
            ? substitute(text: writtenID, binding)
            : ([writtenID] + variables.map { text(binding[$0.name]) }).joined(separator: "-")
        copy.removeAll { $0.key == "id" || ($0.key == "from" && chainedFrom != nil) }
        copy.insert((key: "id", keyLocation: element["id"]?.location ?? location, value: .string(id, element["id"]?.location ?? location)), at: 0)
        copy = copy.map { member in
            (key: member.key, keyLocation: member.keyLocation,
             value: retarget(member.value, copies: copies, binding: binding, ids: member.key == "from"))
        }
        if let chainedFrom {
            let target = copyID(chainedFrom, copies: copies, binding: binding)
            copy.append((key: "from", keyLocation: location, value: .string(target, location)))
        }
        return (id, copy)
    }

    private func decodeForeach(_ value: JSONValue, path: String, declaredBy: String) -> [Variable] {
        guard case .object(let members, _) = value, !members.isEmpty else {
            collector.error(path, at: value.location, "\"foreach\" takes an object of names to lists, e.g. {\"w\": [480, 960]}")
            return []
        }
        var variables: [Variable] = []
        for member in members {
            let name = member.key
            guard let first = name.first, first.isLetter, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                  !PathTemplate.Variable.allCases.map(\.rawValue).contains(name) else {
                collector.error(join(path, name), at: member.keyLocation,
                                "\"\(name)\" cannot name a repetition: a letter then letters, digits or _, and not an item variable ({name}, {index}, …)")
                continue
            }
            guard case .array(let values, _) = member.value, !values.isEmpty,
                  values.allSatisfy({ switch $0 { case .string, .number, .bool: return true; default: return false } }) else {
                collector.error(join(path, name), at: member.value.location, "expected a list of numbers or strings, e.g. [480, 960, 1920]")
                continue
            }
            // Its digits were rounded when read: ids and paths would say another number.
            let inexact = values.enumerated().filter { $0.element.isInexactInteger }
            for (i, value) in inexact {
                collector.error("\(join(path, name))[\(i)]", at: value.location,
                                "integers are exact only within ±9007199254740992 (2^53) and this one is past that; write it as a string (\"…\") to use it as text")
            }
            // Two equal values would make two copies with one id and one file.
            var seen: [String: Int] = [:]
            for (i, value) in values.enumerated() {
                let written = Self.text(value)
                if let first = seen[written] {
                    collector.error("\(join(path, name))[\(i)]", at: value.location,
                                    "\(name) lists \(Self.jsonText(value)) twice (at [\(first)] and [\(i)]); each value makes one copy of the node and its files, so list it once")
                } else {
                    seen[written] = i
                }
            }
            // Kept all the same, so the nodes that use it are not reported for it again.
            variables.append((name, values, declaredBy))
        }
        return variables
    }

    /// What a copy is: its written node, its values and where each is listed, and the parameters
    /// written as one variable.
    private static func copy(of writtenID: String, members: [(key: String, keyLocation: SourceLocation, value: JSONValue)],
                             variables: [Variable], binding: [String: JSONValue]) -> NodeCopy {
        let values = variables.map { variable in
            let value = text(binding[variable.name])
            return NodeCopy.Value(name: variable.name, json: jsonText(binding[variable.name]),
                                  declaredBy: variable.declaredBy, index: variable.values.firstIndex { text($0) == value } ?? 0)
        }
        var parameters: [String: String] = [:]
        for member in members {
            guard case .string(let s, _) = member.value else { continue }
            if let variable = variables.first(where: { s == "{\($0.name)}" }) { parameters[member.key] = variable.name }
        }
        return NodeCopy(declaredID: writtenID, values: values, variableParameters: parameters)
    }

    /// A repetition value (a string, number or boolean) as JSON text.
    static func jsonText(_ value: JSONValue?) -> String {
        guard case .string(let s, _)? = value else { return value == nil ? "null" : text(value) }
        // A String always serialises as a JSON fragment; the fallback is never taken.
        let data = try? JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// Every combination of the variables' values, the last varying fastest.
    static func bindings(_ variables: [Variable]) -> [[String: JSONValue]] {
        variables.reduce([[:]]) { partial, variable in
            partial.flatMap { binding in variable.values.map { value in binding.merging([variable.name: value]) { $1 } } }
        }
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s, _)?: return s
        case .number(let n, _, _)?: return value?.exactInteger.map(String.init) ?? String(n)
        case .bool(let b, _)?: return String(b)
        default: return ""
        }
    }

    static func substitute(text: String, _ binding: [String: JSONValue]) -> String {
        var result = text
        for (name, value) in binding { result = result.replacingOccurrences(of: "{\(name)}", with: Self.text(value)) }
        return result
    }

    /// `value` with every `{name}` of the binding replaced; `"{name}"` alone becomes the value.
    static func substitute(_ value: JSONValue, _ binding: [String: JSONValue]) -> JSONValue {
        switch value {
        case .string(let s, let location):
            for (name, bound) in binding where s == "{\(name)}" {
                switch bound {
                case .string(let t, _): return .string(t, location)
                case .number(let n, let isInteger, _): return .number(n, isInteger: isInteger, location)
                case .bool(let b, _): return .bool(b, location)
                default: break
                }
            }
            return .string(substitute(text: s, binding), location)
        case .array(let list, let location): return .array(list.map { substitute($0, binding) }, location)
        case .object(let members, let location):
            return .object(members.map { (key: $0.key, keyLocation: $0.keyLocation, value: substitute($0.value, binding)) }, location)
        default: return value
        }
    }

    /// The id of `written`'s copy for this binding (itself, if it is not repeated).
    private static func copyID(_ written: String, copies: [String: [Copy]], binding: [String: JSONValue]) -> String {
        guard let list = copies[written] else { return written }
        return list.first { copy in copy.binding.allSatisfy { binding[$0.key].map(text) == text($0.value) } }?.id ?? written
    }

    /// `"@id"` references (and, in `from`, plain ids: `ids`) pointed at the copies with the same values.
    private static func retarget(_ value: JSONValue, copies: [String: [Copy]], binding: [String: JSONValue], ids: Bool) -> JSONValue {
        switch value {
        case .string(let s, let location):
            if s.hasPrefix("@") {
                let id = GraphLinker.referencedID(s)
                return .string("@" + copyID(id, copies: copies, binding: binding) + s.dropFirst(1 + id.count), location)
            }
            return ids && copies[s] != nil ? .string(copyID(s, copies: copies, binding: binding), location) : value
        case .array(let list, let location): return .array(list.map { retarget($0, copies: copies, binding: binding, ids: ids) }, location)
        default: return value
        }
    }
}
