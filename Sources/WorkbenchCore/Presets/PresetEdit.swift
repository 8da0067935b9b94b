/// Changing one node's value in a preset's text and nothing else: the value's bytes are replaced
/// (or the key is added at the end of its node), so order, spacing and every other byte of the
/// file stay as the user wrote them. What the live workbench's "Save" writes.
public enum PresetEdit {
    /// `text` with the top-level graph node `node` (by id, or by op when it has none) given
    /// `key` = `json` (JSON text, e.g. `0.6`, `"webp"`, `[1, 2]`).
    public static func setting(_ key: String, to json: String, node: String, in file: [UInt8]) throws(WorkbenchError) -> [UInt8] {
        try editing(file) { text throws(WorkbenchError) in
            let (members, location) = try writtenNode(node, in: text)
            let lines = LineStarts(text)
            if let member = members.first(where: { $0.key == key }) {
                return replacing(member.value, with: json, in: text, lines: lines)
            }
            // A key the node does not have yet goes after its last member, on that member's terms.
            let objectStart = lines.offset(of: location)
            let objectEnd = JSONSpan.end(of: text, from: objectStart) - 1
            guard let last = members.last else {
                return Array(text[..<objectEnd]) + Array("\"\(key)\": \(json)".utf8) + Array(text[objectEnd...])
            }
            let after = JSONSpan.end(of: text, from: lines.offset(of: last.value.location))
            return Array(text[..<after]) + Array(", \"\(key)\": \(json)".utf8) + Array(text[after...])
        }
    }

    /// `text` with value `index` of `node`'s `"foreach"` list `variable` replaced by `json`: what
    /// changing one copy's value of a parameter written as that variable (`"width": "{w}"`) means
    /// in the file — the copy is made from that value.
    public static func settingRepetitionValue(_ variable: String, index: Int, to json: String, node: String,
                                              in file: [UInt8]) throws(WorkbenchError) -> [UInt8] {
        try editing(file) { text throws(WorkbenchError) in
            let (members, _) = try writtenNode(node, in: text)
            guard case .array(let values, _)? = members.first(where: { $0.key == "foreach" })?.value[variable],
                  values.indices.contains(index) else {
                throw refusal("the preset's node \"\(node)\" no longer repeats over \"\(variable)\" with a value \(index + 1)")
            }
            return replacing(values[index], with: json, in: text, lines: LineStarts(text))
        }
    }

    /// Positions count from after a byte order mark, which stays.
    private static func editing(_ file: [UInt8], _ edit: ([UInt8]) throws(WorkbenchError) -> [UInt8]) throws(WorkbenchError) -> [UInt8] {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let bom = file.starts(with: mark) ? mark : []
        return bom + (try edit(Array(file.dropFirst(bom.count))))
    }

    private static func refusal(_ reason: String) -> WorkbenchError { .unreadablePreset(path: "", reason: reason) }

    /// The members and place of the top-level graph node `node`, as written.
    private static func writtenNode(_ node: String, in text: [UInt8]) throws(WorkbenchError)
        -> (members: [(key: String, keyLocation: SourceLocation, value: JSONValue)], location: SourceLocation) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw refusal("the preset is not valid JSON any more (\(error.message) at \(error.location)): fix it in the editor first")
        }
        guard case .array(let nodes, _)? = root["graph"] else { throw refusal("the preset has no \"graph\" list to change") }
        guard let object = nodes.first(where: { ($0["id"]?.stringValue ?? $0["op"]?.stringValue) == node }),
              case .object(let members, let location) = object else {
            throw refusal("the preset's graph has no node \"\(node)\" any more")
        }
        return (members, location)
    }

    private static func replacing(_ value: JSONValue, with json: String, in text: [UInt8], lines: LineStarts) -> [UInt8] {
        let start = lines.offset(of: value.location)
        let end = JSONSpan.end(of: text, from: start)
        return Array(text[..<start]) + Array(json.utf8) + Array(text[end...])
    }

    /// Where each line starts, to turn a parser's line and column into a byte offset.
    struct LineStarts {
        let starts: [Int]

        init(_ text: [UInt8]) {
            var starts = [0]
            for (index, byte) in text.enumerated() where byte == UInt8(ascii: "\n") { starts.append(index + 1) }
            self.starts = starts
        }

        func offset(of location: SourceLocation) -> Int { starts[location.line - 1] + location.column - 1 }
    }
}

/// The extent of one JSON value in text already known to parse.
enum JSONSpan {
    /// The offset just past the value starting at `start`.
    static func end(of text: [UInt8], from start: Int) -> Int {
        var at = start
        var depth = 0
        repeat {
            let byte = text[at]
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                while text[at] != UInt8(ascii: "\"") { at += text[at] == UInt8(ascii: "\\") ? 2 : 1 }
                at += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                at += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                at += 1
            default:
                if depth == 0 {
                    // A number or a literal: up to the next delimiter.
                    while at < text.count, !",}] \t\r\n".utf8.contains(text[at]) { at += 1 }
                } else {
                    at += 1
                }
            }
        } while depth > 0 && at < text.count
        return at
    }
}
