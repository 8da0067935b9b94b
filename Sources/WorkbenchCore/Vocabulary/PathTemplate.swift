/// An output path with `{variable}` placeholders, e.g. `"thumbs/{name}_{index}.jpg"`.
///
/// Templates are relative to the output root. Parsing refuses absolute paths and `..`
/// components; rendering replaces path separators and dot-only names inside variable values,
/// so no item name or URL can move a file out of the root.
public struct PathTemplate: Sendable, Equatable {
    public enum Variable: String, Sendable, CaseIterable {
        case name, stem, ext, index, hash
        /// The input's folder under its root (`a/b`, or empty): a mirrored tree.
        case dir
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case variable(Variable)
    }

    public let text: String
    let segments: [Segment]

    /// Parses a template; the error message says what is wrong and how to fix it.
    public init(_ text: String) throws(TemplateError) {
        self.text = text
        if text.isEmpty { throw TemplateError("the path is empty") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw TemplateError("the path contains a control character (such as NUL or a line break); file names cannot hold them")
        }
        if text.hasPrefix("/") || text.hasPrefix("~") {
            throw TemplateError("\"\(text)\" is absolute; write paths are relative to the output root (set it with --out or \"output\")")
        }
        var segments: [Segment] = []
        var literal = ""
        var rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "}" { throw TemplateError("unmatched '}' in \"\(text)\"") }
            guard c == "{" else { literal.append(c); continue }
            guard let close = rest.firstIndex(of: "}") else { throw TemplateError("unclosed '{' in \"\(text)\"") }
            let name = String(rest[..<close])
            rest = rest[rest.index(after: close)...]
            guard let variable = Variable(rawValue: name) else {
                let known = Variable.allCases.map(\.rawValue)
                throw TemplateError("unknown variable {\(name)} in \"\(text)\"" + DidYouMean.hint(for: name, among: known)
                    + " (known: " + known.map { "{\($0)}" }.joined(separator: ", ")
                    + ", and the names a \"foreach\" on this node or upstream of it repeats over)")
            }
            if !literal.isEmpty { segments.append(.literal(literal)); literal = "" }
            segments.append(.variable(variable))
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        for component in text.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { throw TemplateError("\"\(text)\" contains \"..\"; a write may not leave the output root") }
        }
        if text.hasSuffix("/") { throw TemplateError("\"\(text)\" names a folder; end it with a file name") }
        self.segments = segments
    }

    /// The relative path for one item. Variable values are sanitised so they stay one path component.
    public func render(for item: Item) -> String {
        var path = ""
        for segment in segments {
            switch segment {
            case .literal(let s): path += s
            case .variable(.dir):
                // Several components: each made safe, none of them "." or "..".
                path += item.directory.split(separator: "/").map { Self.sanitise(String($0)) }.joined(separator: "/")
            case .variable(let v): path += Self.sanitise(value(of: v, for: item))
            }
        }
        return Self.singleSeparators(path)
    }

    /// An empty {dir} leaves "a//b" or a leading "/": one separator, and no leading one. Looked
    /// at byte by byte (Foundation's search is locale-aware, and showed per item in profiles).
    static func singleSeparators(_ path: String) -> String {
        let slash = UInt8(ascii: "/")
        var previous = slash
        var clean = true
        for byte in path.utf8 {
            if byte == slash && previous == slash { clean = false; break }
            previous = byte
        }
        guard !clean else { return path }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        previous = slash
        for byte in path.utf8 where !(byte == slash && previous == slash) {
            bytes.append(byte)
            previous = byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func value(of variable: Variable, for item: Item) -> String {
        switch variable {
        case .name: return item.name
        case .stem: return item.stem
        case .ext: return item.ext
        case .index: return String(item.index)
        case .hash: return item.hash
        case .dir: return item.directory
        }
    }

    /// Makes a value safe as (part of) one path component.
    static func sanitise(_ value: String) -> String {
        // Most values need nothing: checked byte by byte before anything is rebuilt (a byte of
        // a multi-byte character is never one of those replaced).
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }),
           value.utf8.contains(where: { $0 != UInt8(ascii: ".") }) {
            return value
        }
        var cleaned = String(value.unicodeScalars.map { scalar -> Character in
            if scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F { return "_" }
            return Character(scalar)
        })
        if cleaned.allSatisfy({ $0 == "." }) { cleaned = String(repeating: "_", count: max(cleaned.count, 1)) }
        return cleaned
    }
}

/// Why a path template was refused.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
