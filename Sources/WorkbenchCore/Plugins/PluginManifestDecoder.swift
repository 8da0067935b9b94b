/// Reads `plugin.json` strictly, collecting every problem with its line and column.
struct PluginManifestDecoder {
    let file: String
    let folder: String
    private let collector: DiagnosticCollector

    init(file: String, folder: String) {
        self.file = file
        self.folder = folder
        collector = DiagnosticCollector(file: file)
    }

    static let keys = ["name", "version", "api", "library", "filters"]
    static let filterKeys = ["name", "summary", "parameters"]
    static let parameterKeys = ["name", "type", "summary", "default", "required", "min", "max", "choices"]
    static let types = ["number", "integer", "boolean", "string", "choice", "numbers", "matrix"]
    /// Plugin names that would shadow built-in ops.
    static let reservedNames = ["vips"]

    func decode(_ bytes: [UInt8]) throws(WorkbenchError) -> PluginManifest {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            collector.error("", at: error.location, "invalid JSON: \(error.message)")
            throw .invalidPreset(collector.diagnostics)
        }
        guard case .object(let members, _) = root else {
            collector.error("", at: root.location, "plugin.json must be a JSON object, found \(root.typeName)")
            throw .invalidPreset(collector.diagnostics)
        }
        collector.rejectUnknownKeys(members, known: Self.keys, path: "", what: "plugin.json")
        let name = identifier(root["name"], path: "name", at: root.location, what: "the plugin's name (its filters are named <name>.<filter>)")
        if Self.reservedNames.contains(name) { collector.error("name", at: root["name"]?.location, "\"\(name)\" is reserved for built-in ops; choose another name") }
        let version = string(root["version"], path: "version", at: root.location) ?? ""
        let api = integer(root["api"], path: "api", at: root.location) ?? 0
        let library = string(root["library"], path: "library", at: root.location) ?? ""
        if library.contains("/") || library.hasPrefix(".") {
            collector.error("library", at: root["library"]?.location, "the library is a file name in the plugin's folder, e.g. \"libGlow.so\"")
        }
        var filters: [PluginManifest.Filter] = []
        if case .array(let list, _)? = root["filters"] {
            if list.isEmpty { collector.error("filters", at: root["filters"]?.location, "a plugin declares at least one filter") }
            for (i, value) in list.enumerated() {
                if let filter = self.filter(value, path: "filters[\(i)]") {
                    if filters.contains(where: { $0.name == filter.name }) {
                        collector.error("filters[\(i)].name", at: value["name"]?.location, "a second filter named \"\(filter.name)\"")
                    }
                    filters.append(filter)
                }
            }
        } else {
            collector.error("filters", at: root["filters"]?.location ?? root.location, "\"filters\" must be a list of filters")
        }
        if collector.hasErrors { throw .invalidPreset(collector.diagnostics) }
        return PluginManifest(name: name, version: version, api: api, library: library, filters: filters, folder: folder)
    }

    private func filter(_ value: JSONValue, path: String) -> PluginManifest.Filter? {
        guard case .object(let members, _) = value else {
            collector.error(path, at: value.location, "a filter is an object with \"name\", \"summary\" and \"parameters\"")
            return nil
        }
        collector.rejectUnknownKeys(members, known: Self.filterKeys, path: path, what: "a filter")
        let name = identifier(value["name"], path: join(path, "name"), at: value.location, what: "the filter's name")
        let summary = string(value["summary"], path: join(path, "summary"), at: value.location) ?? ""
        var parameters: [ParameterSpec] = []
        switch value["parameters"] {
        case nil: break
        case .array(let list, _)?:
            for (i, item) in list.enumerated() {
                guard let parameter = parameter(item, path: join(path, "parameters[\(i)]")) else { continue }
                if parameters.contains(where: { $0.name == parameter.name }) || parameter.name == "isolation" {
                    collector.error(join(path, "parameters[\(i)].name"), at: item["name"]?.location,
                                    "\"\(parameter.name)\" is declared twice (\"isolation\" is every plugin filter's own)")
                }
                parameters.append(parameter)
            }
        case let other?: collector.error(join(path, "parameters"), at: other.location, "\"parameters\" must be a list")
        }
        return PluginManifest.Filter(name: name, summary: summary, parameters: parameters)
    }

    private func parameter(_ value: JSONValue, path: String) -> ParameterSpec? {
        guard case .object(let members, _) = value else {
            collector.error(path, at: value.location, "a parameter is an object with \"name\", \"type\" and \"summary\"")
            return nil
        }
        collector.rejectUnknownKeys(members, known: Self.parameterKeys, path: path, what: "a parameter")
        let name = identifier(value["name"], path: join(path, "name"), at: value.location, what: "the parameter's name")
        let summary = string(value["summary"], path: join(path, "summary"), at: value.location) ?? ""
        let typeName = string(value["type"], path: join(path, "type"), at: value.location) ?? ""
        let min = number(value["min"], path: join(path, "min")), max = number(value["max"], path: join(path, "max"))
        if let min, let max, min > max { collector.error(join(path, "max"), at: value["max"]?.location, "\"max\" is below \"min\"") }
        let type: ParameterType
        switch typeName {
        case "number": type = .double((min ?? -1e9)...Swift.max(min ?? -1e9, max ?? 1e9))
        case "integer":
            let low = Int(min ?? -2_147_483_648), high = Int(max ?? 2_147_483_647)
            type = .int(low...Swift.max(low, high))
        case "boolean": type = .bool
        case "string": type = .string
        case "numbers": type = .numbers
        case "matrix": type = .matrix
        case "choice":
            guard case .array(let words, _)? = value["choices"], !words.isEmpty, words.allSatisfy({ $0.stringValue != nil }) else {
                collector.error(join(path, "choices"), at: value["choices"]?.location ?? value.location,
                                "a \"choice\" parameter lists its words: \"choices\": [\"soft\", \"hard\"]")
                return nil
            }
            type = .choice(words.compactMap(\.stringValue))
        case "": return nil
        default:
            collector.error(join(path, "type"), at: value["type"]?.location, "unknown type \"\(typeName)\""
                            + DidYouMean.hint(for: typeName, among: Self.types) + " (one of " + Self.types.joined(separator: ", ") + ")")
            return nil
        }
        var required = false
        if let flag = value["required"] {
            if case .bool(let b, _) = flag { required = b } else { collector.error(join(path, "required"), at: flag.location, "\"required\" is true or false") }
        }
        var defaultValue: ParameterValue?
        if let given = value["default"] {
            defaultValue = ParameterCoercion.coerce(given, to: type, path: join(path, "default"), collector)
        } else if !required {
            collector.error(path, at: value.location, "give \"default\" or \"required\": true for \"\(name)\"")
        }
        return ParameterSpec(name, type, required: required, default: defaultValue, summary)
    }

    private func identifier(_ value: JSONValue?, path: String, at location: SourceLocation, what: String) -> String {
        guard let text = string(value, path: path, at: location) else { return "" }
        let valid = text.first?.isLetter == true && text.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") && $0.isASCII }
        if !valid { collector.error(path, at: value?.location, "\(what) is a letter then letters, digits, \"_\" or \"-\"; found \"\(text)\"") }
        return text
    }

    private func string(_ value: JSONValue?, path: String, at location: SourceLocation) -> String? {
        guard let value else {
            collector.error(path, at: location, "\"\(path.split(separator: ".").last ?? "")\" is missing")
            return nil
        }
        guard let text = value.stringValue else {
            collector.error(path, at: value.location, "expected a string, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return text
    }

    private func integer(_ value: JSONValue?, path: String, at location: SourceLocation) -> Int? {
        guard let value else {
            collector.error(path, at: location, "\"\(path)\" is missing")
            return nil
        }
        guard case .number(let n, true, _) = value, let i = Int(exactly: n) else {
            collector.error(path, at: value.location, "expected an integer, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return i
    }

    private func number(_ value: JSONValue?, path: String) -> Double? {
        guard let value else { return nil }
        guard case .number(let n, _, _) = value else {
            collector.error(path, at: value.location, "expected a number, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return n
    }
}
