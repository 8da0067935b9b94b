import Foundation

/// How a JSON value is checked against a parameter's type and turned into its value.
extension ParameterType {
    /// `value` as a value of this type, or nil after reporting at `path` why it is not one.
    func coerce(_ value: JSONValue, path: String, _ collector: DiagnosticCollector) -> ParameterValue? {
        let type = self
        func fail(_ extra: String = "") -> ParameterValue? {
            collector.error(path, at: value.location,
                            "expected \(type.summary), found \(DiagnosticCollector.describe(value))" + extra)
            return nil
        }
        switch self {
        case .bool:
            guard case .bool(let b, _) = value else { return fail() }
            return .bool(b)
        case .int(let range):
            guard let i = value.exactInteger, range.contains(i) else { return fail() }
            return .int(i)
        case .double(let range):
            guard case .number(let n, _, _) = value else { return fail() }
            guard range.contains(n) else { return fail() }
            return .double(n)
        case .string:
            guard case .string(let s, _) = value else { return fail() }
            return .string(s)
        case .choice(let words):
            guard case .string(let s, _) = value else { return fail() }
            guard words.contains(s) else { return fail(DidYouMean.hint(for: s, among: words)) }
            return .string(s)
        case .reference:
            guard case .string(let s, _) = value, s.hasPrefix("@"), s.count > 1, !s.hasSuffix("[*]") else {
                return fail(" (write \"@\" and the node's id)")
            }
            return .string(s)
        case .fanIn:
            guard case .string(let s, _) = value, s.hasPrefix("@"), s.hasSuffix("[*]"), s.count > 4 else {
                return fail(" (write \"@\", the node's id and [*])")
            }
            return .string(s)
        case .references:
            return Self.references(value, path: path, collector, fail: fail)
        case .imageOrMatrix:
            if case .string(let s, _) = value, s.hasPrefix("@"), s.count > 1, !s.hasSuffix("[*]") { return .string(s) }
            guard case .array(let rows, _) = value, !rows.isEmpty else {
                return fail(" (write \"@\" and the node's id, or a matrix such as [[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]])")
            }
            return Self.matrix(rows, value, path: path, collector, fail: fail)
        case .matrix:
            guard case .array(let rows, _) = value, !rows.isEmpty else { return fail(" (write rows of numbers such as [[0, 0], [128, 150], [255, 255]])") }
            return Self.matrix(rows, value, path: path, collector, fail: fail)
        case .flags(let words):
            return Self.flags(value, words: words, summary: type.summary, path: path, collector, fail: fail)
        case .integers, .numbers, .colour:
            return Self.numbers(value, integers: type == .integers, fail: fail)
        case .stringMap:
            return Self.stringMap(value, path: path, collector, fail: fail)
        case .options(let fields):
            return Self.options(value, fields: fields, path: path, collector, fail: fail)
        case .anyOf(let types):
            for candidate in types {
                let scratch = DiagnosticCollector(file: collector.file)
                if let coerced = candidate.coerce(value, path: path, scratch), !scratch.hasErrors { return coerced }
            }
            return fail()
        case .presetFile(let builtins):
            guard case .string(let s, _) = value else { return fail() }
            if builtins.contains(s) { return .string(s) }
            if let problem = PresetFolder.problem(with: s) {
                collector.error(path, at: value.location, problem)
                return nil
            }
            return .string(s)
        case .pathTemplate:
            guard case .string(let s, _) = value else { return fail() }
            do {
                _ = try PathTemplate(s)
            } catch {
                collector.error(path, at: value.location, error.description)
                return nil
            }
            return .string(s)
        }
    }

    /// `["@a", "@b"]`, or one `"@id"` / `"@id[*]"` string.
    private static func references(_ value: JSONValue, path: String, _ collector: DiagnosticCollector,
                                   fail: (String) -> ParameterValue?) -> ParameterValue? {
        if case .string(let s, _) = value, s.hasPrefix("@"), s.count > 1 { return .string(s) }
        guard case .array(let elements, _) = value, !elements.isEmpty else {
            return fail(" (write [\"@a\", \"@b\"] or \"@id[*]\")")
        }
        var references: [ParameterValue] = []
        for (i, element) in elements.enumerated() {
            guard case .string(let s, _) = element, s.hasPrefix("@"), s.count > 1, !s.hasSuffix("[*]") else {
                collector.error("\(path)[\(i)]", at: element.location,
                                "expected a reference \"@id\", found \(DiagnosticCollector.describe(element))")
                return nil
            }
            references.append(.string(s))
        }
        return .list(references)
    }

    /// Words from a set, as `"a|b"` or `["a", "b"]`.
    private static func flags(_ value: JSONValue, words: [String], summary: String, path: String, _ collector: DiagnosticCollector,
                              fail: (String) -> ParameterValue?) -> ParameterValue? {
        var chosen: [String]
        switch value {
        case .string(let s, _): chosen = s.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        case .array(let elements, _):
            chosen = []
            for element in elements {
                guard case .string(let s, _) = element else { return fail("") }
                chosen.append(s)
            }
        default: return fail("")
        }
        if let unknown = chosen.first(where: { !words.contains($0) }) {
            collector.error(path, at: value.location, "unknown flag \"\(unknown)\"" + DidYouMean.hint(for: unknown, among: words)
                            + " (expected \(summary))")
            return nil
        }
        return .list(chosen.map { .string($0) })
    }

    /// One number or a list of them, each within `listBound`; whole ones for `integers`.
    private static func numbers(_ value: JSONValue, integers: Bool, fail: (String) -> ParameterValue?) -> ParameterValue? {
        let elements: [JSONValue]
        if case .array(let list, _) = value { elements = list } else { elements = [value] }
        var numbers: [ParameterValue] = []
        for element in elements {
            guard case .number(let n, _, _) = element else { return fail("") }
            guard abs(n) <= listBound else { return fail(outOfBounds) }
            if integers {
                guard n.rounded() == n, let i = Int(exactly: n) else { return fail("") }
                numbers.append(.int(i))
            } else {
                numbers.append(.double(n))
            }
        }
        guard !numbers.isEmpty else { return fail("") }
        return .list(numbers)
    }

    /// An object of strings, as `[key, text]` pairs in the order written.
    private static func stringMap(_ value: JSONValue, path: String, _ collector: DiagnosticCollector,
                                  fail: (String) -> ParameterValue?) -> ParameterValue? {
        guard case .object(let members, _) = value else { return fail("") }
        var pairs: [ParameterValue] = []
        for member in members {
            guard case .string(let text, _) = member.value else {
                collector.error("\(path).\(member.key)", at: member.value.location,
                                "expected a string, found \(DiagnosticCollector.describe(member.value))")
                return nil
            }
            pairs.append(.list([.string(member.key), .string(text)]))
        }
        return .list(pairs)
    }

    /// An object of named options, each coerced by its own type, as `[name, value]` pairs under
    /// each option's own name (an alias is read as it).
    private static func options(_ value: JSONValue, fields: [OptionField], path: String, _ collector: DiagnosticCollector,
                                fail: (String) -> ParameterValue?) -> ParameterValue? {
        guard case .object(let members, _) = value else { return fail("") }
        var pairs: [ParameterValue] = []
        var failed = false
        for member in members {
            guard let field = fields.first(where: { $0.name == member.key || $0.aliases.contains(member.key) }) else {
                collector.error("\(path).\(member.key)", at: member.value.location,
                                "\"\(member.key)\" is not one of these options: " + fields.map { "\"\($0.name)\"" }.joined(separator: ", "))
                failed = true
                continue
            }
            guard let coerced = field.type.coerce(member.value, path: "\(path).\(member.key)", collector) else {
                failed = true
                continue
            }
            pairs.append(.list([.string(field.name), coerced]))
        }
        return failed ? nil : .list(pairs)
    }

    private static let outOfBounds = " (numbers in a list, colour or matrix lie between −1e9 and 1e9)"

    /// Rows of numbers, every row as long; one row may be written flat: [1, 2, 1].
    private static func matrix(_ rows: [JSONValue], _ value: JSONValue, path: String, _ collector: DiagnosticCollector,
                               fail: (String) -> ParameterValue?) -> ParameterValue? {
        let nested = rows.allSatisfy { if case .array = $0 { return true } else { return false } }
        var matrix: [ParameterValue] = []
        for (r, row) in (nested ? rows : [value]).enumerated() {
            guard case .array(let cells, _) = row else { return fail("") }
            var numbers: [ParameterValue] = []
            for cell in cells {
                guard case .number(let n, _, _) = cell else {
                    collector.error(nested ? "\(path)[\(r)]" : path, at: cell.location,
                                    "expected a number in the matrix, found \(DiagnosticCollector.describe(cell))")
                    return nil
                }
                guard abs(n) <= listBound else {
                    collector.error(nested ? "\(path)[\(r)]" : path, at: cell.location,
                                    "expected a number in the matrix, found \(DiagnosticCollector.describe(cell))" + outOfBounds)
                    return nil
                }
                numbers.append(.double(n))
            }
            matrix.append(.list(numbers))
        }
        let width = matrix.first.map { if case .list(let l) = $0 { return l.count } else { return 0 } } ?? 0
        guard width > 0, matrix.allSatisfy({ if case .list(let l) = $0 { return l.count == width } else { return false } }) else {
            return fail(" (every row of a matrix needs the same number of entries)")
        }
        return .list(matrix)
    }
}
