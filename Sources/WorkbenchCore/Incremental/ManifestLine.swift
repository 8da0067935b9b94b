import Foundation

/// One line of the manifest log: an item's record, led by the hashes a store indexes it by, so
/// opening a log of a million records reads each line's first bytes and decodes nothing.
///
/// ```
/// {"k":"<key hash>","s":"<preset hash>","p":["<path hash>",…],"item":{…the ManifestItem…}}
/// {"k":"<key hash>","s":"<preset hash>","p":[],"item":null}      (the record was removed)
/// ```
/// Hashes are 16 hex digits; the key hash stands for preset and input, the preset hash for the
/// preset alone (0 for none), a path hash for one output path. A later line for the same key
/// replaces an earlier one.
struct ManifestLine {
    /// The first line of every log.
    static let header = Data("{\"manifestLog\":1}\n".utf8)

    let key: UInt64
    let preset: UInt64
    let paths: [UInt64]
    /// Where the item's JSON starts and ends in the line (nil: a removed record).
    let item: Range<Int>?

    /// The hash of a record's key: its preset (nil for records of manifests before presets were
    /// named) and input.
    static func key(preset: String?, input: String) -> UInt64 {
        var hash = Hash64()
        if let preset { hash.add(preset.utf8); hash.add(0) } else { hash.add(1) }
        hash.add(input.utf8)
        return hash.value
    }

    static func preset(_ preset: String?) -> UInt64 {
        guard let preset else { return 0 }
        var hash = Hash64()
        hash.add(preset.utf8)
        return hash.value
    }

    static func path(_ path: String) -> UInt64 {
        var hash = Hash64()
        hash.add(path.utf8)
        return hash.value
    }

    /// The line for `item` (nil: a removal of the record with key `key`).
    static func encode(key: UInt64, preset: String?, item: ManifestItem?) throws -> Data {
        // Bytes, not String concatenation: this runs once per item.
        var head: [UInt8] = []
        head.reserveCapacity(64 + 20 * (item?.outputs.count ?? 0))
        head.append(contentsOf: "{\"k\":\"".utf8)
        ContentHash.appendDigits(key, to: &head)
        head.append(contentsOf: "\",\"s\":\"".utf8)
        ContentHash.appendDigits(Self.preset(preset), to: &head)
        head.append(contentsOf: "\",\"p\":[".utf8)
        for (index, output) in (item?.outputs ?? []).enumerated() {
            if index > 0 { head.append(UInt8(ascii: ",")) }
            head.append(UInt8(ascii: "\""))
            ContentHash.appendDigits(path(output.path), to: &head)
            head.append(UInt8(ascii: "\""))
        }
        head.append(contentsOf: "],\"item\":".utf8)
        var data = Data(head)
        if let item, let json = item.plainJSON() {
            data.append(json)
        } else if let item {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            data.append(try encoder.encode(item))
        } else {
            data.append(contentsOf: "null".utf8)
        }
        data.append(contentsOf: "}\n".utf8)
        return data
    }

    /// Reads the hashes of a line (without its newline); nil if it is not a well-formed line.
    static func parse(_ line: UnsafeRawBufferPointer) -> ManifestLine? {
        var at = 0
        func expect(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= line.count,
                  memcmp(line.baseAddress! + at, text.utf8Start, count) == 0 else { return false }
            at += count
            return true
        }
        func hash() -> UInt64? {
            guard at + 16 <= line.count else { return nil }
            var value: UInt64 = 0
            for byte in line[at..<at + 16] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                default: return nil
                }
                value = value << 4 | UInt64(digit)
            }
            at += 16
            return value
        }
        guard line.count > 0, expect("{\"k\":\""), let key = hash(), expect("\",\"s\":\""), let preset = hash(),
              expect("\",\"p\":[") else { return nil }
        var paths: [UInt64] = []
        while !expect("],\"item\":") {
            guard paths.isEmpty || expect(","), expect("\""), let path = hash(), expect("\"") else { return nil }
            paths.append(path)
        }
        guard line.count >= at + 1, line[line.count - 1] == UInt8(ascii: "}") else { return nil }
        let item = at..<line.count - 1
        if item.count == 4, memcmp(line.baseAddress! + at, "null", 4) == 0 {
            return ManifestLine(key: key, preset: preset, paths: paths, item: nil)
        }
        return ManifestLine(key: key, preset: preset, paths: paths, item: item)
    }

    /// The item of a line (nil for a removal, or a line that does not decode).
    static func item(in line: Data) -> ManifestItem? {
        line.withUnsafeBytes { raw in
            guard let range = parse(raw)?.item else { return nil }
            return ManifestItemReader.item(UnsafeRawBufferPointer(rebasing: raw[range]))
        }
    }


}

/// FNV-1a over bytes, finished with a 64-bit mixer so that near keys (`img000001.jpg`,
/// `img000002.jpg`) spread over the whole range.
struct Hash64 {
    private(set) var state: UInt64 = 0xcbf29ce484222325

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { state = (state ^ UInt64(byte)) &* 0x100000001b3 }
    }

    mutating func add(_ byte: UInt8) { state = (state ^ UInt64(byte)) &* 0x100000001b3 }

    var value: UInt64 {
        var z = state &+ 0x9e3779b97f4a7c15
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133111eb
        return z ^ (z >> 31)
    }
}
