import Foundation

/// `"include": ["looks.json"]`: files of filters (`{"filters": {…}}`) shared by several presets.
/// Each is checked on its own (its mistakes reported in its own file, behind the `include` entry
/// that named it); the preset's own `filters` win over included ones of the same name.
struct FilterIncludes {
    let registry: OpRegistry
    let collector: DiagnosticCollector

    /// The `filters` object with every included file's filters under the preset's own.
    func merged(_ include: JSONValue?, own: JSONValue?, baseDirectory: String) -> JSONValue? {
        guard let include else { return own }
        let entries: [JSONValue]
        switch include {
        case .string: entries = [include]
        case .array(let list, _): entries = list
        default:
            collector.error("include", at: include.location, "\"include\" names files of filters: \"looks.json\" or a list of them")
            return own
        }
        var members: [(key: String, keyLocation: SourceLocation, value: JSONValue)] = []
        for (i, entry) in entries.enumerated() {
            let path = entries.count == 1 && include.stringValue != nil ? "include" : "include[\(i)]"
            guard let relative = entry.stringValue, !relative.isEmpty else {
                collector.error(path, at: entry.location, "expected a file name, found \(DiagnosticCollector.describe(entry))")
                continue
            }
            let file = relative.hasPrefix("/") ? relative : URL(fileURLWithPath: baseDirectory).appendingPathComponent(relative).standardizedFileURL.path
            guard let data = FileManager.default.contents(atPath: file) else {
                collector.error(path, at: entry.location, "cannot read \"\(relative)\" (looked for \(file))")
                continue
            }
            let own = DiagnosticCollector(file: file)
            var filters: JSONValue?
            do {
                let root = try JSONParser.parse(Array(data))
                if case .object(let keys, _) = root {
                    own.rejectUnknownKeys(keys, known: ["$schema", "filters"], path: "", what: "a file of filters")
                    filters = root["filters"]
                    if filters == nil { own.error("", at: root.location, "a file of filters holds {\"filters\": {…}}") }
                } else {
                    own.error("", at: root.location, "a file of filters is a JSON object: {\"filters\": {…}}")
                }
                _ = PresetFilters(registry: registry, collector: own).decode(filters)
            } catch {
                own.error("", at: error.location, "invalid JSON: \(error.message)")
            }
            for diagnostic in own.diagnostics where diagnostic.severity == .error {
                collector.error(path, at: entry.location, "the included file has a problem: \(diagnostic)")
            }
            if !own.hasErrors, case .object(let included, _)? = filters {
                for member in included {
                    members.removeAll { $0.key == member.key }
                    members.append(member)
                }
            }
        }
        if case .object(let mine, _)? = own {
            for member in mine {
                members.removeAll { $0.key == member.key }
                members.append(member)
            }
        }
        return .object(members, own?.location ?? include.location)
    }
}
