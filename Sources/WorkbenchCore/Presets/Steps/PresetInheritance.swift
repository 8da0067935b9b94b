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

    /// How many presets a chain of `extends` may hold: each base is checked on its own, so a
    /// chain costs the square of its length; no house style needs more.
    static let longestChain = 64

    /// One preset file on an `extends` chain, its `extends` taken out.
    private struct Link {
        var root: JSONValue
        let file: String
        let folder: String
        let collector: DiagnosticCollector
        /// Where its `extends` names the next file.
        var extendsAt: SourceLocation?
    }

    /// `root` with its `extends` chain merged in (a loop is refused). The chain is read first,
    /// file by file down to the last base, then merged back up, each base checked on its own
    /// with its own bases merged: a loop over a list, not one call per file.
    func resolve(_ root: JSONValue, file: String, baseDirectory: String) -> JSONValue {
        var chain = [Link(root: root, file: file, folder: baseDirectory, collector: collector)]
        var seen: Set<String> = [URL(fileURLWithPath: file).standardizedFileURL.path]
        while let link = chain.last, case .object(var members, let location) = link.root, let extends = link.root["extends"] {
            members.removeAll { $0.key == "extends" }
            chain[chain.count - 1].root = .object(members, location)
            guard case .string(let relative, let at) = extends, !relative.isEmpty else {
                link.collector.error("extends", at: extends.location, "\"extends\" names the preset file this one builds on, e.g. \"base.json\"")
                break
            }
            let path = relative.hasPrefix("/") ? relative : URL(fileURLWithPath: link.folder).appendingPathComponent(relative).standardizedFileURL.path
            if seen.contains(path) {
                let files = (chain.map(\.file) + [path]).map { ($0 as NSString).lastPathComponent }
                link.collector.error("extends", at: at, "\"\(relative)\" extends this preset again (\(files.joined(separator: " → "))); a chain of extends may not loop")
                break
            }
            guard chain.count < Self.longestChain else {
                link.collector.error("extends", at: at, "a chain of extends may hold \(Self.longestChain) presets at most; merge some of them")
                break
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                link.collector.error("extends", at: at, "cannot read \"\(relative)\" (looked for \(path))")
                break
            }
            // The base must stand on its own: its mistakes are reported in its own file.
            let baseCollector = DiagnosticCollector(file: path)
            let base: JSONValue
            do {
                base = try JSONParser.parse(Array(data))
            } catch {
                baseCollector.error("", at: error.location, "invalid JSON: \(error.message)")
                base = .object([], location)
            }
            chain[chain.count - 1].extendsAt = at
            chain.append(Link(root: base, file: path, folder: (path as NSString).deletingLastPathComponent, collector: baseCollector))
            seen.insert(path)
        }
        var resolved = chain[chain.count - 1].root
        for index in stride(from: chain.count - 2, through: 0, by: -1) {
            let base = chain[index + 1], link = chain[index]
            if !base.collector.hasErrors {
                // decode records every problem in base.collector, which is reported with the preset's
                // own; its throw adds nothing.
                _ = try? loader.decode(root: resolved, file: base.file, baseDirectory: base.folder, overrides: [], collector: base.collector)
            }
            for diagnostic in base.collector.diagnostics where diagnostic.severity == .error {
                link.collector.error("extends", at: link.extendsAt, "the base has a problem: \(diagnostic)")
            }
            guard case .object(let members, let location) = link.root else { resolved = link.root; continue }
            guard case .object(let baseMembers, _) = resolved else { resolved = link.root; continue }
            resolved = .object(merge(baseMembers, members, baseFolder: base.folder), location)
        }
        return resolved
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
        // The first node with each id, found in constant time (graphs can be a million nodes long).
        var first: [String: Int] = [:]
        for (index, node) in nodes.enumerated() {
            if let id = id(node), first[id] == nil { first[id] = index }
        }
        for node in childNodes {
            if let key = id(node), let index = first[key] {
                nodes[index] = mergedObjects(nodes[index], node)
            } else {
                if let key = id(node) { first[key] = nodes.count }
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
