/// The type of an op parameter, with the range or choices that validation enforces.
///
/// The one declaration every consumer reads: its `name` (the same word in `workbench filters`,
/// on the live page and in a plugin's manifest), its `summary` in messages, its `control` on the
/// page, its JSON Schema (`jsonSchema`), how a JSON value is checked and coerced (`coerce`) and
/// whether a validated value fits (`accepts`). A value is written back as JSON by
/// `ParameterValue.jsonText`.
public enum ParameterType: Sendable, Equatable {
    case bool
    case int(ClosedRange<Int>)
    case double(ClosedRange<Double>)
    case string
    /// One of a fixed set of words.
    case choice([String])
    /// An output path template such as `"{name}.jpg"`; validated at load time.
    case pathTemplate
    /// A file inside the preset's folder, written relative to it (never absolute, never `..`),
    /// or one of `builtins` (names the op knows itself, e.g. libvips' `"srgb"` profile).
    case presetFile(builtins: [String])
    /// Another node's output, written `"@id"`; adds an edge from that node.
    case reference(PayloadKind)
    /// Every item's output of an item-scope node, written `"@id[*]"`, for run-scope nodes (fan-in).
    case fanIn(PayloadKind)
    /// Several outputs: a list of `"@id"` references, or one fan-in `"@id[*]"`.
    case references(PayloadKind)
    /// An image: a reference `"@id"`, or a matrix written as a list of rows of numbers.
    case imageOrMatrix
    /// Rows of numbers, written `[[1, 2], [3, 4]]` (every row as long); a kernel's mask or a
    /// curve's points. Sizes are checked by the op.
    case matrix
    /// A set of words, written `"a|b"` or `["a", "b"]`.
    case flags([String])
    /// Integers: a list, or one integer.
    case integers
    /// Numbers: a list, or one number.
    case numbers
    /// A colour: `[red, green, blue]` (with alpha, a fourth) on the image's scale, or one grey
    /// number; written and checked as `numbers`, shown on the page as a colour picker.
    case colour
    /// Any of these (e.g. an option whose type depends on another parameter).
    indirect case anyOf([ParameterType])
    /// Names to strings, written as a JSON object (e.g. request headers); kept in file order as
    /// a list of `[name, value]` pairs.
    case stringMap
    /// Named options, each of its own type, written as a JSON object (e.g. the options an
    /// `encode` gives one format alone: `"avif": {"Q": 52, "effort": 4}`); kept in file order
    /// as a list of `[name, value]` pairs under each option's own name.
    case options([OptionField])

    /// The type's one word, as `workbench filters`, the page and a plugin's manifest spell it.
    public var name: String {
        switch self {
        case .bool: return "boolean"
        case .int: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .choice: return "choice"
        case .pathTemplate: return "pathTemplate"
        case .presetFile: return "presetFile"
        case .reference: return "reference"
        case .fanIn: return "fanIn"
        case .references: return "references"
        case .imageOrMatrix: return "imageOrMatrix"
        case .matrix: return "matrix"
        case .flags: return "flags"
        case .integers: return "integers"
        case .numbers: return "numbers"
        case .colour: return "colour"
        case .anyOf: return "anyOf"
        case .stringMap: return "stringMap"
        case .options: return "options"
        }
    }

    /// The control the live page shows for it; nil for what stays in the editor (paths,
    /// templates, references, files, several types at once).
    public var control: ParameterControl? {
        switch self {
        case .bool: return .toggle
        case .int, .double: return .slider
        case .choice: return .menu
        case .string: return .text
        case .numbers, .integers: return .list
        case .colour: return .colour
        case .matrix: return .grid
        case .pathTemplate, .presetFile, .reference, .fanIn, .references, .imageOrMatrix, .flags, .anyOf, .stringMap, .options: return nil
        }
    }

    /// The types a plugin's manifest or a preset's own filter may declare, by name.
    public static let declarable = ["number", "integer", "boolean", "string", "choice", "numbers", "colour", "matrix"]

    /// The declarable type `name` with its bounds or words (nil: not declarable, or `choices` missing).
    public static func declared(_ name: String, min: Double?, max: Double?, integerBounds: ClosedRange<Int>,
                                choices: [String]?) -> ParameterType? {
        switch name {
        case "number": return .double((min ?? -1e9)...Swift.max(min ?? -1e9, max ?? 1e9))
        case "integer": return .int(integerBounds)
        case "choice": return choices.map { .choice($0) }
        default: return Self.plain.first { $0.name == name }
        }
    }

    /// The largest magnitude a number in a list, colour or matrix may have: far beyond any pixel
    /// scale or useful weight, and small enough that no arithmetic on it overflows what a
    /// kernel or libvips computes with (validation holds values to it, the schema says it).
    static let listBound = 1e9

    /// The declarable types that take no bounds or words.
    private static let plain: [ParameterType] = [.bool, .string, .numbers, .colour, .matrix]

    /// A number as messages and listings write it: whole numbers without ".0".
    public static func format(_ value: Double) -> String {
        abs(value) < 1e15 ? Int(exactly: value).map(String.init) ?? String(value) : String(value)
    }

    /// How the type reads in messages and listings.
    public var summary: String {
        switch self {
        case .bool: return "a boolean"
        case .int(let r): return "an integer \(r.lowerBound)…\(r.upperBound)"
        case .double(let r): return "a number \(Self.format(r.lowerBound))…\(Self.format(r.upperBound))"
        case .string: return "a string"
        case .choice(let words): return "one of " + words.map { "\"\($0)\"" }.joined(separator: ", ")
        case .pathTemplate: return "a path template"
        case .presetFile(let builtins):
            return "a file inside the preset's folder" + (builtins.isEmpty ? "" : " or one of " + builtins.map { "\"\($0)\"" }.joined(separator: ", "))
        case .reference(let kind): return "a reference \"@id\" to a node producing \(kind.article)"
        case .fanIn(let kind): return "a fan-in \"@id[*]\" of a node producing \(kind.article)"
        case .references(let kind): return "a list of references [\"@id\", …] or a fan-in \"@id[*]\" of nodes producing \(kind.article)s"
            .replacingOccurrences(of: "an images", with: "images").replacingOccurrences(of: "a written files", with: "written files")
        case .imageOrMatrix: return "an image reference \"@id\" or a matrix [[…], …]"
        case .matrix: return "a matrix [[…], …] of numbers"
        case .flags(let words): return "a set of " + words.map { "\"\($0)\"" }.joined(separator: ", ") + " (as \"a|b\" or a list)"
        case .integers: return "a list of integers (or one)"
        case .numbers: return "a list of numbers (or one)"
        case .colour: return "a colour [red, green, blue] (or one grey number)"
        case .anyOf(let types): return types.map(\.summary).joined(separator: " or ")
        case .stringMap: return "an object of names to strings"
        case .options(let fields): return "an object of options (" + fields.map { "\"\($0.name)\"" }.joined(separator: ", ") + ")"
        }
    }
}

extension ParameterType {
    /// Whether an already validated value also fits this type (for checks across parameters).
    public func accepts(_ value: ParameterValue) -> Bool {
        switch (self, value) {
        case (.bool, .bool): return true
        case (.int(let r), .int(let i)): return r.contains(i)
        case (.double(let r), .double(let d)): return r.contains(d)
        case (.double(let r), .int(let i)): return r.contains(Double(i))
        case (.string, .string), (.pathTemplate, .string), (.presetFile, .string): return true
        case (.choice(let words), .string(let s)): return words.contains(s)
        case (.flags(let words), .list(let list)):
            return list.allSatisfy { if case .string(let s) = $0 { return words.contains(s) } else { return false } }
        case (.integers, .list(let list)): return list.allSatisfy { if case .int = $0 { return true } else { return false } }
        case (.numbers, .list(let list)), (.colour, .list(let list)):
            return list.allSatisfy { switch $0 { case .int, .double: return true; default: return false } }
        case (.anyOf(let types), _): return types.contains { $0.accepts(value) }
        case (.stringMap, .list(let pairs)):
            return pairs.allSatisfy { if case .list(let pair) = $0, pair.count == 2 { return true } else { return false } }
        case (.options(let fields), .list(let pairs)):
            return pairs.allSatisfy {
                guard case .list(let pair) = $0, pair.count == 2, case .string(let name) = pair[0],
                      let field = fields.first(where: { $0.name == name }) else { return false }
                return field.type.accepts(pair[1])
            }
        case (.reference, .string), (.fanIn, .string), (.imageOrMatrix, .string), (.imageOrMatrix, .list), (.matrix, .list),
             (.references, .string), (.references, .list): return true
        default: return false
        }
    }
}

/// One option of an `.options` parameter: its name, other names it answers to, and its type.
public struct OptionField: Sendable, Equatable {
    public let name: String
    public let aliases: [String]
    public let type: ParameterType

    public init(_ name: String, _ type: ParameterType, aliases: [String] = []) {
        self.name = name
        self.type = type
        self.aliases = aliases
    }
}

extension ParameterValue {
    /// The `[name, value]` pairs of a `.stringMap` or `.options` value, in file order.
    public var pairs: [(name: String, value: ParameterValue)] {
        guard case .list(let items) = self else { return [] }
        return items.compactMap {
            guard case .list(let pair) = $0, pair.count == 2, case .string(let name) = pair[0] else { return nil }
            return (name, pair[1])
        }
    }
}

/// How the live page shows a parameter.
public enum ParameterControl: String, Sendable {
    /// A checkbox.
    case toggle
    /// A slider over the useful part of the range, with a number field beside it.
    case slider
    /// A menu of the choices.
    case menu
    /// A colour picker (a text field for colours that are not red, green and blue).
    case colour
    /// A text field of JSON numbers.
    case list
    /// A grid of number fields, one per entry of the matrix.
    case grid
    /// A text field.
    case text
}
