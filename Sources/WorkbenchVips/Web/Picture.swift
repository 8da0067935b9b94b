import Foundation
import WorkbenchCore

/// One photo's files as a page lists them, and its placeholder: written out as the
/// `<picture>` element or as JSON.
struct Picture {
    let item: Item
    let files: [PictureFile]
    let placeholder: PicturePlaceholder?

    /// The `<img>`'s format: the one every browser shows.
    let fallback: String
    /// The largest file of the `<img>`'s format: its `src`, `width` and `height`.
    let largest: PictureFile?

    init(item: Item, files: [PictureFile], placeholder: PicturePlaceholder?) {
        self.item = item
        self.files = files
        self.placeholder = placeholder
        let formats = Set(files.map(\.format))
        let fallback = ["jpeg", "png", "webp", "gif"].first { formats.contains($0) } ?? files.last?.format ?? "jpeg"
        self.fallback = fallback
        largest = files.filter { $0.format == fallback }.max { $0.width < $1.width }
    }

    /// The item as the run-scope index keys it: its folder (when the input had one) and name.
    var key: String { item.directory.isEmpty ? item.name : item.directory + "/" + item.name }

    func html(sizes: String, alt: String, loading: String, decoding: String) -> String {
        let sizes = Self.escaped(sizes)
        var out = "<picture>\n"
        out.reserveCapacity(256 + 96 * files.count)
        // `files` is in the order of `PictureFile.preference`, narrowest first: one run a format.
        var start = 0
        while start < files.count {
            let format = files[start].format
            var end = start
            while end < files.count, files[end].format == format { end += 1 }
            if format != fallback {
                out += "  <source type=\"\(PictureFile.mediaType(format))\" srcset=\"\(Self.escaped(Self.srcset(files[start..<end])))\" sizes=\"\(sizes)\">\n"
            }
            start = end
        }
        out += "  <img"
        if let largest { out += " src=\"\(Self.escaped(largest.url))\"" }
        out += " srcset=\"\(Self.escaped(Self.srcset(files.filter { $0.format == fallback }[...])))\" sizes=\"\(sizes)\""
        if let largest { out += " width=\"\(largest.width)\" height=\"\(largest.height)\"" }
        out += " alt=\"\(Self.escaped(alt))\" loading=\"\(loading)\" decoding=\"\(decoding)\""
        if let colour = placeholder?.colour { out += " style=\"background-color: \(colour)\"" }
        out += ">\n</picture>\n"
        return out
    }

    var json: String {
        func text(_ s: String) -> String { JSONString.literal(s) }
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

    /// `url 480w, url 960w` of files listed narrowest first.
    static func srcset(_ files: ArraySlice<PictureFile>) -> String {
        files.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
    }

    /// Text safe inside a double-quoted attribute.
    static func escaped(_ text: String) -> String {
        // Most text (paths, sizes) has nothing to escape: kept as it is.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else {
            return text
        }
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
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
        struct Size: Hashable { let format: String, width: Int }
        var seen = Set<Size>()
        var files: [PictureFile] = []
        for file in written {
            guard let format = file.format, let width = file.width, let height = file.height,
                  seen.insert(Size(format: format, width: width)).inserted else { continue }
            files.append(PictureFile(url: baseURL + Self.encodedPath(file.path), format: format, width: width, height: height, bytes: file.bytes))
        }
        let rank = { (format: String) in preference.firstIndex(of: format) ?? preference.count }
        return files.sorted { (rank($0.format), $0.width) < (rank($1.format), $1.width) }
    }

    /// A path as a URL's path: every byte percent-encoded but for the characters a URL leaves
    /// as they are (so a space, a comma — which would split a srcset — or a `#` is safe).
    static func encodedPath(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
