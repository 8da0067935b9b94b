import Foundation

/// `"extends": "base.json"`: a preset built on another one, merged before it is decoded.
///
/// The base (itself possibly extending another) is read and checked first, so its own mistakes
/// are reported in its own file. Then the extending preset's keys win: `name`, `description`,
/// `inputs` and `output` replace the base's, `queues` are merged by name, and in `graph` a node
/// with the id of a base node (or its op, for a node without id) changes that node key by key,
/// while other nodes are added after the base's. A base's relative `inputs` and `output` keep
/// pointing into the base's folder.
struct PresetInheritance {
    let loader: PresetLoader
    let collector: DiagnosticCollector

    /// `root` with its `extends` chain merged in; `chain` holds the files already on the way
    /// (a cycle is refused).
    func resolve(_ root: JSONValue, file: String, baseDirectory: String, chain: [String]) -> JSONValue {
        guard case .object(var members, let location) = root, let extends = root["extends"] else { return root }
        members.removeAll { $0.key == "extends" }
        guard case .string(let relative, let at) = extends, !relative.isEmpty else {
            collector.error("extends", at: extends.location, "\"extends\" names the preset file this one builds on, e.g. \"base.json\"")
            return .object(members, location)
        }
        let path = relative.hasPrefix("/") ? relative : URL(fileURLWithPath: baseDirectory).appendingPathComponent(relative).standardizedFileURL.path
        if chain.contains(path) || path == URL(fileURLWithPath: file).standardizedFileURL.path {
            let files = (chain + [file, path]).map { ($0 as NSString).lastPathComponent }
            collector.error("extends", at: at, "\"\(relative)\" extends this preset again (\(files.joined(separator: " → "))); a chain of extends may not loop")
            return .object(members, location)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            collector.error("extends", at: at, "cannot read \"\(relative)\" (looked for \(path))")
            return .object(members, location)
        }
        let baseFolder = (path as NSString).deletingLastPathComponent
        // The base must stand on its own: its mistakes are reported in its own file.
        let baseCollector = DiagnosticCollector(file: path)
        let base: JSONValue
        do {
            base = PresetInheritance(loader: loader, collector: baseCollector)
                .resolve(try JSONParser.parse(Array(data)), file: path, baseDirectory: baseFolder,
                         chain: chain + [URL(fileURLWithPath: file).standardizedFileURL.path])
            if !baseCollector.hasErrors {
                _ = try? loader.decode(root: base, file: path, baseDirectory: baseFolder, overrides: [], collector: baseCollector)
            }
        } catch {
            baseCollector.error("", at: error.location, "invalid JSON: \(error.message)")
            base = .object([], location)
        }
        for diagnostic in baseCollector.diagnostics where diagnostic.severity == .error {
            collector.error("extends", at: at, "the base has a problem: \(diagnostic)")
        }
        guard case .object(let baseMembers, _) = base else { return .object(members, location) }
        return .object(merge(baseMembers, members, baseFolder: baseFolder), location)
    }

    private typealias Members = [(key: String, keyLocation: SourceLocation, value: JSONValue)]

    private func merge(_ base: Members, _ child: Members, baseFolder: String) -> Members {
        var merged: Members = base.map { member in
            switch member.key {
            case "inputs", "output", "include": return (member.key, member.keyLocation, Self.anchored(member.value, in: baseFolder))
            default: return member
            }
        }
        for member in child {
            switch member.key {
            case "queues", "filters": merged = set(member.key, mergedObjects(value(of: member.key, in: merged), member.value), in: merged, at: member.keyLocation)
            case "include":
                // The base's files of filters and the extending preset's, all of them.
                func list(_ value: JSONValue?) -> [JSONValue] {
                    switch value { case .array(let l, _)?: return l; case let v?: return [v]; case nil: return [] }
                }
                merged = set("include", .array(list(value(of: "include", in: merged)) + list(member.value), member.value.location),
                             in: merged, at: member.keyLocation)
            case "graph": merged = set("graph", mergedGraph(value(of: "graph", in: merged), member.value), in: merged, at: member.keyLocation)
            default: merged = set(member.key, member.value, in: merged, at: member.keyLocation)
            }
        }
        return merged
    }

    private func value(of key: String, in members: Members) -> JSONValue? { members.first { $0.key == key }?.value }

    private func set(_ key: String, _ value: JSONValue, in members: Members, at location: SourceLocation) -> Members {
        var result = members
        if let index = result.firstIndex(where: { $0.key == key }) { result[index] = (key, location, value) } else { result.append((key, location, value)) }
        return result
    }

    /// Objects merged key by key (the second wins); anything else: the second.
    private func mergedObjects(_ base: JSONValue?, _ child: JSONValue) -> JSONValue {
        guard case .object(let baseMembers, _)? = base, case .object(let childMembers, let location) = child else { return child }
        var result = baseMembers
        for member in childMembers { result = set(member.key, member.value, in: result, at: member.keyLocation) }
        return .object(result, location)
    }

    /// Base nodes, each changed by the child node of the same id; then the child's new nodes.
    private func mergedGraph(_ base: JSONValue?, _ child: JSONValue) -> JSONValue {
        guard case .array(var nodes, _)? = base, case .array(let childNodes, let location) = child else { return child }
        func id(_ node: JSONValue) -> String? { node["id"]?.stringValue ?? node["op"]?.stringValue }
        for node in childNodes {
            if let index = nodes.firstIndex(where: { id($0) != nil && id($0) == id(node) }) {
                nodes[index] = mergedObjects(nodes[index], node)
            } else {
                nodes.append(node)
            }
        }
        return .array(nodes, location)
    }

    /// Relative paths of `inputs` or `output` made absolute in `folder`.
    private static func anchored(_ value: JSONValue, in folder: String) -> JSONValue {
        func absolute(_ text: String) -> String {
            text.contains("://") || text.hasPrefix("/") ? text : URL(fileURLWithPath: folder).appendingPathComponent(text).standardizedFileURL.path
        }
        switch value {
        case .string(let s, let l): return .string(absolute(s), l)
        case .array(let list, let l): return .array(list.map { anchored($0, in: folder) }, l)
        case .object(let members, let l):
            return .object(members.map { member in
                // Inside `map`, the keys are names and the values paths.
                (member.key, member.keyLocation, anchored(member.value, in: folder))
            }, l)
        default: return value
        }
    }
}
