/// Turns a JSON value into a parameter value of the declared type, or reports why it can't.
enum ParameterCoercion {
    static func coerce(_ value: JSONValue, to type: ParameterType, path: String,
                       _ collector: DiagnosticCollector) -> ParameterValue? {
        func fail(_ extra: String = "") -> ParameterValue? {
            collector.error(path, at: value.location,
                            "expected \(type.summary), found \(DiagnosticCollector.describe(value))" + extra)
            return nil
        }
        switch type {
        case .bool:
            guard case .bool(let b, _) = value else { return fail() }
            return .bool(b)
        case .int(let range):
            guard case .number(let n, _, _) = value, n.rounded() == n, let i = Int(exactly: n) else { return fail() }
            guard range.contains(i) else { return fail() }
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
}
