/// A string as a JSON literal, written by hand: quotes, backslashes and control characters
/// escaped, the rest as UTF-8. For writers that put JSON together themselves (event lines, a
/// page's metadata), where Foundation's serializer would cost more than the text.
public enum JSONString {
    /// Appends `text` as a JSON string literal; `escapingSlashes` writes `/` as `\/`, as
    /// `JSONSerialization` does.
    public static func append(_ text: String, to out: inout [UInt8], escapingSlashes: Bool = false) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "/") where escapingSlashes: out.append(contentsOf: #"\/"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string literal.
    public static func literal(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
