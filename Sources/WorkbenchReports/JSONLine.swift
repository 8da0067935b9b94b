import Foundation
import WorkbenchCore

/// One JSON object written on one line, keys sorted: what `JSONSerialization` with
/// `.sortedKeys` writes for the reporters' objects (strings, integers, doubles, booleans, null,
/// arrays and nested objects), slashes escaped as it escapes them. `JSONSerialization` sorts
/// keys through ICU's collation and bridges every value: ~70 µs an event, more than a small
/// image's whole run took, so `--events` made a 10,000-item run six times longer.
enum JSONLine {
    /// The object's bytes, without a newline; nil for a value of another type (the caller then
    /// falls back to `JSONSerialization`).
    static func encode(_ object: [String: Any]) -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        guard write(object, into: &out) else { return nil }
        return Data(out)
    }

    private static func write(_ value: Any, into out: inout [UInt8]) -> Bool {
        switch value {
        case let text as String:
            string(text, into: &out)
        case let flag as Bool:
            out.append(contentsOf: (flag ? "true" : "false").utf8)
        case let number as Int:
            out.append(contentsOf: String(number).utf8)
        case let number as Double:
            guard number.isFinite else { return false }
            // Whole numbers as integers, as JSONSerialization writes them.
            if number == number.rounded(), abs(number) < 1e15 {
                out.append(contentsOf: String(Int(number)).utf8)
            } else {
                out.append(contentsOf: "\(number)".utf8)
            }
        case is NSNull:
            out.append(contentsOf: "null".utf8)
        case let object as [String: Any]:
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                guard let member = object[key], write(member, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        case let array as [Any]:
            out.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard write(element, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        default:
            return false
        }
        return true
    }

    /// As `JSONSerialization` writes strings (`/` escaped).
    private static func string(_ text: String, into out: inout [UInt8]) {
        JSONString.append(text, to: &out, escapingSlashes: true)
    }
}
