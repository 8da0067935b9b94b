/// A type written as JSON: its JSON Schema (`workbench schema`) and its listing (`workbench
/// filters --json`).
extension ParameterType {
    /// The type as `workbench filters --json` lists it: its name as `kind`, and its bounds,
    /// words, built-in names, payload or alternatives where it has them.
    public var listing: [String: any Sendable] {
        var object: [String: any Sendable] = ["kind": name]
        if case .int(let range) = self {
            object["min"] = range.lowerBound
            object["max"] = range.upperBound
        } else if let bounds {
            // JSON has no infinity: an unbounded side is left out.
            if bounds.lowerBound.isFinite { object["min"] = bounds.lowerBound }
            if bounds.upperBound.isFinite { object["max"] = bounds.upperBound }
        }
        if let words { object["values"] = words }
        switch self {
        case .presetFile(let builtins): object["builtins"] = builtins
        case .reference(let kind), .fanIn(let kind), .references(let kind): object["payload"] = kind.rawValue
        case .anyOf(let types): object["types"] = types.map(\.listing)
        default: break
        }
        return object
    }

    /// The JSON Schema of a value of this type, as editors read it.
    public var jsonSchema: [String: any Sendable] {
        let reference = "^@[^\\[\\]]+$", fanIn = "^@[^\\[\\]]+\\[\\*\\]$"
        let number: [String: any Sendable] = ["type": "number", "minimum": -Self.listBound, "maximum": Self.listBound]
        switch self {
        case .bool: return ["type": "boolean"]
        case .int(let range): return ["type": "integer", "minimum": range.lowerBound, "maximum": range.upperBound]
        case .double(let range):
            // JSON has no infinity: an unbounded side is left out.
            var schema: [String: any Sendable] = ["type": "number"]
            if range.lowerBound.isFinite { schema["minimum"] = range.lowerBound }
            if range.upperBound.isFinite { schema["maximum"] = range.upperBound }
            return schema
        case .string, .pathTemplate, .presetFile: return ["type": "string"]
        case .choice(let words): return ["enum": words]
        case .flags(let words):
            return ["oneOf": [["type": "string"], ["type": "array", "items": ["enum": words] as [String: any Sendable]]] as [[String: any Sendable]]]
        case .reference: return ["type": "string", "pattern": reference]
        case .fanIn: return ["type": "string", "pattern": fanIn]
        case .references:
            return ["oneOf": [["type": "string", "pattern": fanIn],
                              ["type": "array", "minItems": 1, "items": ["type": "string", "pattern": reference] as [String: any Sendable]]]
                    as [[String: any Sendable]]]
        case .imageOrMatrix:
            return ["oneOf": [["type": "string", "pattern": reference],
                              ["type": "array", "items": ["oneOf": [number, ["type": "array", "items": number]]] as [String: any Sendable]]]
                    as [[String: any Sendable]]]
        case .matrix: return ["type": "array", "minItems": 1, "items": ["type": "array", "items": number] as [String: any Sendable]]
        case .integers: return ["oneOf": [["type": "integer"], ["type": "array", "items": ["type": "integer"]] as [String: any Sendable]]]
        case .numbers, .colour: return ["oneOf": [number, ["type": "array", "items": number]]]
        case .anyOf(let types): return ["anyOf": types.map(\.jsonSchema)]
        case .stringMap: return ["type": "object", "additionalProperties": ["type": "string"]]
        case .options(let fields):
            var properties: [String: any Sendable] = [:]
            for field in fields {
                for name in [field.name] + field.aliases { properties[name] = field.type.jsonSchema }
            }
            return ["type": "object", "properties": properties, "additionalProperties": false]
        }
    }

    /// The lowest and highest value of a number or integer.
    public var bounds: ClosedRange<Double>? {
        switch self {
        case .int(let r): return Double(r.lowerBound)...Double(r.upperBound)
        case .double(let r): return r
        default: return nil
        }
    }

    /// The words of a choice or a set of flags.
    public var words: [String]? {
        switch self {
        case .choice(let words), .flags(let words): return words
        default: return nil
        }
    }
}
