import Foundation
import WorkbenchCore

/// One photo's files as a page lists them, and its placeholder: written out as the
/// `<picture>` element or as JSON.
struct Picture {
    let item: Item
    let files: [PictureFile]
    let placeholder: PicturePlaceholder?

    /// The `<img>`'s format: the one every browser shows.
    var fallback: String {
        let formats = Set(files.map(\.format))
        return ["jpeg", "png", "webp", "gif"].first { formats.contains($0) } ?? files.last?.format ?? "jpeg"
    }

    /// The largest file of the `<img>`'s format: its `src`, `width` and `height`.
    var largest: PictureFile? { files.filter { $0.format == fallback }.max { $0.width < $1.width } }

    /// The item as the run-scope index keys it: its folder (when the input had one) and name.
    var key: String { item.directory.isEmpty ? item.name : item.directory + "/" + item.name }

    func html(sizes: String, alt: String, loading: String, decoding: String) -> String {
        var lines = ["<picture>"]
        let sources = Dictionary(grouping: files.filter { $0.format != fallback }, by: \.format)
        for format in PictureFile.preference where sources[format] != nil {
            let list = sources[format] ?? []
            lines.append("  <source type=\"\(PictureFile.mediaType(format))\" srcset=\"\(Self.escaped(Self.srcset(list)))\" sizes=\"\(Self.escaped(sizes))\">")
        }
        let own = files.filter { $0.format == fallback }
        var img = "  <img"
        if let largest { img += " src=\"\(Self.escaped(largest.url))\"" }
        img += " srcset=\"\(Self.escaped(Self.srcset(own)))\" sizes=\"\(Self.escaped(sizes))\""
        if let largest { img += " width=\"\(largest.width)\" height=\"\(largest.height)\"" }
        img += " alt=\"\(Self.escaped(alt))\" loading=\"\(loading)\" decoding=\"\(decoding)\""
        if let colour = placeholder?.colour { img += " style=\"background-color: \(colour)\"" }
        lines.append(img + ">")
        lines.append("</picture>")
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        func text(_ s: String) -> String { ParameterValue.string(s).jsonText }
        var members = ["\"item\": \(text(key))", "\"name\": \(text(item.name))"]
        if let largest { members += ["\"width\": \(largest.width)", "\"height\": \(largest.height)", "\"src\": \(text(largest.url))"] }
        if let placeholder {
            members.append("\"thumbhash\": \(text(placeholder.thumbHash))")
            members.append("\"colour\": \(text(placeholder.colour))")
            members.append("\"placeholderFrom\": \(text(placeholder.source))")
        }
        let list = files.map { file in
            "    {\"url\": \(text(file.url)), \"format\": \(text(file.format)), \"type\": \(text(PictureFile.mediaType(file.format))), "
                + "\"width\": \(file.width), \"height\": \(file.height), \"bytes\": \(file.bytes)}"
        }
        members.append("\"files\": [\n" + list.joined(separator: ",\n") + "\n  ]")
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }

    /// `url 480w, url 960w`, narrowest first.
    static func srcset(_ files: [PictureFile]) -> String {
        files.sorted { $0.width < $1.width }.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
    }

    /// Text safe inside a double-quoted attribute.
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }
}

/// One written file as a page refers to it.
struct PictureFile {
    let url: String
    let format: String
    let width: Int
    let height: Int
    let bytes: Int

    /// The formats a `<picture>` offers first: the smaller files, for the browsers that read them.
    static let preference = ["avif", "jxl", "webp", "heif", "png", "jpeg", "gif", "tiff"]

    static func mediaType(_ format: String) -> String {
        ["jpeg": "image/jpeg", "jxl": "image/jxl", "tiff": "image/tiff"][format] ?? "image/\(format)"
    }

    /// The encoded images among `written`, each (format, width) once — a photo narrower than two
    /// widths gives two files of its own width, and one is enough — in the order of
    /// `preference`, narrowest first.
    static func listed(_ written: [OutputFile], baseURL: String) -> [PictureFile] {
        var seen = Set<String>()
        var files: [PictureFile] = []
        for file in written {
            guard let format = file.format, let width = file.width, let height = file.height,
                  seen.insert("\(format) \(width)").inserted else { continue }
            files.append(PictureFile(url: baseURL + Self.encodedPath(file.path), format: format, width: width, height: height, bytes: file.bytes))
        }
        let rank = { (format: String) in preference.firstIndex(of: format) ?? preference.count }
        return files.sorted { (rank($0.format), $0.width) < (rank($1.format), $1.width) }
    }

    /// A path as a URL's path: each segment percent-encoded but for the characters a URL
    /// leaves as they are (so a space, a comma — which would split a srcset — or a `#` is safe).
    static func encodedPath(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~/")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}
