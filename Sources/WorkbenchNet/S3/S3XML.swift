import Foundation

/// The few elements of S3's XML answers we read (a listing's keys, an error's code, an
/// upload's id), found by tag: S3 sends flat, predictable documents, and entities are the only
/// escaping in them.
struct S3XML {
    let text: Substring

    init(_ text: String) { self.text = Substring(text) }
    init(_ text: Substring) { self.text = text }

    /// The contents of every `<tag>…</tag>`, in order (elements of that name do not nest in S3's answers).
    func elements(_ tag: String) -> [S3XML] {
        var found: [S3XML] = []
        var rest = text[...]
        let open = "<\(tag)>", close = "</\(tag)>"
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(S3XML(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The text of the first `<tag>…</tag>`, entities decoded.
    func value(_ tag: String) -> String? {
        guard let start = text.range(of: "<\(tag)>"), let end = text[start.upperBound...].range(of: "</\(tag)>") else { return nil }
        return Self.decode(text[start.upperBound..<end.lowerBound])
    }

    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += "&\(entity);" }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// `text` with `&`, `<`, `>` escaped, for the bodies we send.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
