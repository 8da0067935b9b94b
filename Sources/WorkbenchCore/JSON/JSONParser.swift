/// A strict JSON (RFC 8259) parser that records the line and column of every value.
///
/// Foundation's decoders lose positions, and preset errors must say `line:column`.
struct JSONParser {
    struct SyntaxError: Error, Sendable {
        let message: String
        let location: SourceLocation
    }

    private let bytes: [UInt8]
    private var offset = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private static let maxDepth = 512

    init(_ text: [UInt8]) {
        // A UTF-8 byte order mark is tolerated, as editors on some systems write one.
        if text.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes = Array(text.dropFirst(3))
        } else {
            bytes = text
        }
    }

    static func parse(_ text: [UInt8]) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(text)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.offset < parser.bytes.count {
            throw parser.error("unexpected text after the end of the JSON document")
        }
        return value
    }

    private var location: SourceLocation { SourceLocation(line: line, column: offset - lineStart + 1) }

    private func error(_ message: String, at location: SourceLocation? = nil) -> SyntaxError {
        SyntaxError(message: message, location: location ?? self.location)
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                offset += 1
            case UInt8(ascii: "\n"):
                offset += 1
                line += 1
                lineStart = offset
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        guard offset < bytes.count else { throw error("unexpected end of file; a value was expected") }
        let start = location
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString(), start)
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true, start)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false, start)
        case UInt8(ascii: "n"): try expectWord("null"); return .null(start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            throw error("unexpected character '\(Character(Unicode.Scalar(bytes[offset])))'; a value was expected")
        }
    }

    private mutating func expectWord(_ word: String) throws(SyntaxError) {
        let start = location
        for byte in word.utf8 {
            guard offset < bytes.count, bytes[offset] == byte else {
                throw error("invalid literal; expected '\(word)'", at: start)
            }
            offset += 1
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        let start = location
        try enter()
        offset += 1
        var members: [(key: String, keyLocation: SourceLocation, value: JSONValue)] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(members, start)
        }
        while true {
            skipWhitespace()
            let keyLocation = location
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw error("expected a quoted key")
            }
            let key = try parseString()
            if members.contains(where: { $0.key == key }) {
                throw error("duplicate key \"\(key)\"", at: keyLocation)
            }
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                throw error("expected ':' after key \"\(key)\"")
            }
            offset += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, keyLocation, value))
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of file inside an object") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "}") { offset += 1; break }
            throw error("expected ',' or '}' in an object")
        }
        depth -= 1
        return .object(members, start)
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        let start = location
        try enter()
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(elements, start)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of file inside an array") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; break }
            throw error("expected ',' or ']' in an array")
        }
        depth -= 1
        return .array(elements, start)
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let start = location
        offset += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        while true {
            guard offset < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { offset += 1; break }
            if byte < 0x20 { throw error("control character inside a string; use an escape such as \\n") }
            if byte != UInt8(ascii: "\\") {
                raw.append(byte)
                offset += 1
                continue
            }
            flush()
            offset += 1
            guard offset < bytes.count else { throw error("unterminated string", at: start) }
            let escape = bytes[offset]
            offset += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                          bytes[offset + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    offset += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid UTF-16 surrogate pair") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(scalar)
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
            }
        }
        flush()
        return String(scalars)
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard offset < bytes.count, let digit = hexDigit(bytes[offset]) else {
                throw error("a \\u escape needs four hex digits")
            }
            value = value * 16 + digit
            offset += 1
        }
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
        let start = location
        let first = offset
        var isInteger = true
        func digits() -> Int {
            let from = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - from
        }
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let intStart = offset
        guard digits() > 0 else { throw error("invalid number", at: start) }
        if bytes[intStart] == UInt8(ascii: "0"), offset - intStart > 1 {
            throw error("numbers may not have leading zeros", at: start)
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard digits() > 0 else { throw error("invalid number: digits expected after '.'", at: start) }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("invalid number: digits expected in the exponent", at: start) }
        }
        let text = String(decoding: bytes[first..<offset], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("number out of range: \(text.count <= 40 ? text : text.prefix(30) + "…") is beyond what a JSON number holds here (±1.8e308)", at: start)
        }
        return .number(value, isInteger: isInteger, start)
    }
}
