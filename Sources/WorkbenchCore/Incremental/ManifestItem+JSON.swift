import Foundation

/// A manifest record written by hand: what `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes for it, byte for byte (tested against the encoder), for
/// records whose strings need no escaping — nearly all. The encoder took a twentieth of a small
/// item's time; a string with a quote, a backslash or a control character still goes to it.
extension ManifestItem {
    /// The JSON, or nil when a string needs escaping (then the encoder writes it).
    func plainJSON() -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(256 + outputs.count * 160)
        func plain(_ text: String) -> Bool {
            text.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        }
        var ok = true
        func string(_ text: String) {
            if !plain(text) { ok = false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
        }
        func key(_ name: StaticString, first: inout Bool) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }
        func number<T: BinaryInteger>(_ value: T) { out.append(contentsOf: String(value).utf8) }

        var first = true
        out.append(UInt8(ascii: "{"))
        key("identity", first: &first)
        var inner = true
        out.append(UInt8(ascii: "{"))
        if let content = identity.content { key("content", first: &inner); string(content) }
        if let etag = identity.etag { key("etag", first: &inner); string(etag) }
        if let lastModified = identity.lastModified { key("lastModified", first: &inner); string(lastModified) }
        if let modifiedNs = identity.modifiedNs { key("modifiedNs", first: &inner); number(modifiedNs) }
        if let size = identity.size { key("size", first: &inner); number(size) }
        out.append(UInt8(ascii: "}"))
        key("input", first: &first)
        string(input)
        key("outputs", first: &first)
        out.append(UInt8(ascii: "["))
        for (index, file) in outputs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var field = true
            out.append(UInt8(ascii: "{"))
            key("bytes", first: &field); number(file.bytes)
            if let format = file.format { key("format", first: &field); string(format) }
            if let height = file.height { key("height", first: &field); number(height) }
            key("node", first: &field); string(file.node)
            if let notMade = file.notMade { key("notMade", first: &field); string(notMade) }
            key("path", first: &field); string(file.path)
            if let recipe = file.recipe { key("recipe", first: &field); string(recipe) }
            if let width = file.width { key("width", first: &field); number(width) }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if let preset { key("preset", first: &first); string(preset) }
        out.append(UInt8(ascii: "}"))
        return ok ? Data(out) : nil
    }
}
