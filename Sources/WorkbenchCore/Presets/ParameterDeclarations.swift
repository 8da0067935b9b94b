/// Parameters declared as data (`{"name", "type", "summary", "default" | "required", "min",
/// "max", "choices", "pixels"}`): by plugin manifests and by a preset's own filters, read the same way.
struct ParameterDeclarations {
    let collector: DiagnosticCollector

    static let keys = ["name", "type", "summary", "default", "required", "min", "max", "choices", "pixels"]

    func parameter(_ value: JSONValue, path: String) -> ParameterSpec? {
        guard case .object(let members, _) = value else {
            collector.error(path, at: value.location, "a parameter is an object with \"name\", \"type\" and \"summary\"")
            return nil
        }
        collector.rejectUnknownKeys(members, known: Self.keys, path: path, what: "a parameter")
        let name = identifier(value["name"], path: join(path, "name"), at: value.location, what: "the parameter's name")
        let summary = string(value["summary"], path: join(path, "summary"), at: value.location) ?? ""
        let typeName = string(value["type"], path: join(path, "type"), at: value.location) ?? ""
        let min = number(value["min"], path: join(path, "min")), max = number(value["max"], path: join(path, "max"))
        if let min, let max, min > max { collector.error(join(path, "max"), at: value["max"]?.location, "\"max\" is below \"min\"") }
        guard !typeName.isEmpty else { return nil }
        var integerBounds = -2_147_483_648...2_147_483_647
        if typeName == "integer" {
            // Bounds of an integer are integers, and kernels get them as doubles: within ±2^53.
            func bound(_ key: String, _ given: Double?, default fallback: Int) -> Int {
                guard let given, let declared = value[key] else { return fallback }
                if let exact = declared.exactInteger { return exact }
                collector.error(join(path, key), at: declared.location,
                                "the \"\(key)\" of an integer parameter must be a whole number within ±2^53, not \(DiagnosticCollector.describe(declared))")
                return given < 0 ? Int.min / 2 : Int.max / 2
            }
            let low = bound("min", min, default: integerBounds.lowerBound), high = bound("max", max, default: integerBounds.upperBound)
            integerBounds = low...Swift.max(low, high)
        }
        var choices: [String]?
        if case .array(let words, _)? = value["choices"], !words.isEmpty, words.allSatisfy({ $0.stringValue != nil }) {
            choices = words.compactMap(\.stringValue)
        }
        guard let type = ParameterType.declared(typeName, min: min, max: max, integerBounds: integerBounds, choices: choices) else {
            if typeName == "choice" {
                collector.error(join(path, "choices"), at: value["choices"]?.location ?? value.location,
                                "a \"choice\" parameter lists its words: \"choices\": [\"soft\", \"hard\"]")
            } else {
                collector.error(join(path, "type"), at: value["type"]?.location, "unknown type \"\(typeName)\""
                                + DidYouMean.hint(for: typeName, among: ParameterType.declarable)
                                + " (one of " + ParameterType.declarable.joined(separator: ", ") + ")")
            }
            return nil
        }
        var required = false
        if let flag = value["required"] {
            if case .bool(let b, _) = flag { required = b } else { collector.error(join(path, "required"), at: flag.location, "\"required\" is true or false") }
        }
        var pixels = false
        if let flag = value["pixels"] {
            if case .bool(let b, _) = flag, type.control == .slider {
                pixels = b
            } else {
                collector.error(join(path, "pixels"), at: flag.location, "\"pixels\" is true or false, on an \"integer\" or \"number\"")
            }
        }
        var defaultValue: ParameterValue?
        if let given = value["default"] {
            defaultValue = type.coerce(given, path: join(path, "default"), collector)
        } else if !required {
            collector.error(path, at: value.location, "give \"default\" or \"required\": true for \"\(name)\"")
        }
        return ParameterSpec(name, type, required: required, default: defaultValue, pixels: pixels, summary)
    }

    func identifier(_ value: JSONValue?, path: String, at location: SourceLocation, what: String) -> String {
        guard let text = string(value, path: path, at: location) else { return "" }
        let valid = text.first?.isLetter == true && text.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") && $0.isASCII }
        if !valid { collector.error(path, at: value?.location, "\(what) is a letter then letters, digits, \"_\" or \"-\"; found \"\(text)\"") }
        return text
    }

    func string(_ value: JSONValue?, path: String, at location: SourceLocation) -> String? {
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

    func number(_ value: JSONValue?, path: String) -> Double? {
        guard let value else { return nil }
        guard case .number(let n, _, _) = value else {
            collector.error(path, at: value.location, "expected a number, found \(DiagnosticCollector.describe(value))")
            return nil
        }
        return n
    }
}
