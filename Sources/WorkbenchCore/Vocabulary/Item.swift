/// One input of a run: a URL or a local path, with the names path templates can use.
public struct Item: Sendable, Hashable {
    /// Position in the input list, from 0.
    public let index: Int
    /// The map key for `map` inputs, else the file name without its extension.
    public let name: String
    /// A URL (`http://…`, `https://…`, `file://…`) or a local path.
    public let source: String

    /// The input's folder relative to the folder it was found under (a glob's fixed part, a
    /// folder given as input), `""` when it is right there: `{dir}` in path templates, to
    /// mirror a tree.
    public let directory: String

    /// What a listing said of the input (a bucket's ETag, size and time), so an incremental
    /// rerun can tell it unchanged without asking for it.
    public let listed: InputIdentity?

    public init(index: Int, name: String? = nil, source: String, directory: String = "", listed: InputIdentity? = nil) {
        self.index = index
        self.source = source
        self.name = name ?? Item.splitFileName(of: source).stem
        self.directory = directory
        self.listed = listed
    }

    /// `"Bridge" (Bridge.JPG)`: the name and, when it says more, the source's file name — the
    /// name alone does not tell apart two inputs whose shared name made them collide.
    public var label: String {
        let file = source.split(separator: "/").last.map(String.init) ?? source
        return file.isEmpty || file == name ? "\"\(name)\"" : "\"\(name)\" (\(file))"
    }

    /// The last path component of the source without its extension.
    public var stem: String { Item.splitFileName(of: source).stem }
    /// The source's extension without the dot, or an empty string.
    public var ext: String { Item.splitFileName(of: source).ext }

    /// Whether the source is a URL with a scheme (as opposed to a local path).
    public var isURL: Bool { Item.hasScheme(source) }

    /// Whether `text` contains "://" (without Foundation's locale-aware search, which showed in
    /// profiles of runs over a million items).
    static func hasScheme(_ text: String) -> Bool {
        var matched = 0
        for byte in text.utf8 {
            switch (matched, byte) {
            case (_, UInt8(ascii: ":")): matched = 1
            case (1, UInt8(ascii: "/")): matched = 2
            case (2, UInt8(ascii: "/")): return true
            default: matched = 0
            }
        }
        return false
    }

    /// A short stable hash of the source (FNV-1a, 64-bit, 12 hex digits), for unique names.
    public var hash: String {
        var h: UInt64 = 0xcbf29ce484222325
        for byte in source.utf8 {
            h ^= UInt64(byte)
            h &*= 0x100000001b3
        }
        return String(ContentHash.digits(h).prefix(12))
    }

    static func splitFileName(of source: String) -> (stem: String, ext: String) {
        // Byte by byte, without Foundation's locale-aware search: a million items name their
        // files through here.
        var path = Substring(source)
        let isURL = hasScheme(source)
        // An object key is a name, not a URL: `s3://photos/in/hash#tag.jpg` is split at the
        // bucket only; "#", "?" and "%20" are part of the name, as they are in a file's.
        let isObjectKey = isURL && isObjectURL(source)
        if isURL, let afterScheme = endOfScheme(in: path) {
            path = path[afterScheme...]
            // Drop the host (or bucket), the query and the fragment: only the URL path names the file.
            if let slash = path.utf8.firstIndex(of: UInt8(ascii: "/")) { path = path[slash...] } else { path = "" }
            if !isObjectKey, let cut = path.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { path = path[..<cut] }
        }
        while path.utf8.last == UInt8(ascii: "/") { path = path.dropLast() }
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) { path = path[path.utf8.index(after: slash)...] }
        let decoded = String(path).removingPercentEncodingIfURL(isURL && !isObjectKey)
        guard let dot = decoded.utf8.lastIndex(of: UInt8(ascii: ".")), dot != decoded.startIndex else {
            return (decoded.isEmpty ? "item" : decoded, "")
        }
        return (String(decoded[..<dot]), String(decoded[decoded.utf8.index(after: dot)...]))
    }

    /// Whether `text` is an `s3://` URL, whose key is taken byte for byte.
    static func isObjectURL(_ text: String) -> Bool {
        var prefix = text.utf8.prefix(5).makeIterator()
        for expected in "s3://".utf8 {
            guard var byte = prefix.next() else { return false }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            if byte != expected { return false }
        }
        return true
    }

    /// Where the text after the first "://" begins.
    private static func endOfScheme(in text: Substring) -> String.Index? {
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":") {
                let second = bytes.index(after: index)
                if second != bytes.endIndex, bytes[second] == UInt8(ascii: "/") {
                    let third = bytes.index(after: second)
                    if third != bytes.endIndex, bytes[third] == UInt8(ascii: "/") { return bytes.index(after: third) }
                }
            }
            index = bytes.index(after: index)
        }
        return nil
    }
}

private extension String {
    /// Percent-decoding without Foundation, so that `photo%201.jpg` names `photo 1`.
    func removingPercentEncodingIfURL(_ isURL: Bool) -> String {
        guard isURL, contains("%") else { return self }
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            let hi = iterator.next(), lo = iterator.next()
            if let hi, let lo, let value = UInt8(String(decoding: [hi, lo], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
                if let hi { bytes.append(hi) }
                if let lo { bytes.append(lo) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Item {
    /// The stand-in item of run-scope nodes.
    public static let run = Item(index: -1, name: "run", source: "")
}
