/// Reads a `ManifestItem` from the JSON of a log line, several times faster than `JSONDecoder`
/// (which dominated a rerun of a million up-to-date items). Knows only what records hold:
/// objects, arrays, strings, integers (64-bit, exactly — times are in nanoseconds), `null`.
/// Anything else, or malformed text, reads as nil (the record is then treated as absent).
struct ManifestItemReader {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    static func item(_ json: UnsafeRawBufferPointer) -> ManifestItem? {
        var reader = ManifestItemReader(bytes: json)
        return reader.item()
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func item() -> ManifestItem? {
        var input: String?, preset: String?, identity = InputIdentity(), outputs: [OutputFile] = []
        let ok = object { reader, key in
            switch key {
            case "input": input = reader.string()
            case "preset": preset = reader.optionalString()
            case "identity": identity = reader.identity() ?? InputIdentity(); return reader.ok
            case "outputs":
                return reader.array { reader in
                    guard let file = reader.file() else { return false }
                    outputs.append(file)
                    return true
                }
            default: return reader.skip()
            }
            return reader.ok
        }
        guard ok, let input else { return nil }
        var item = ManifestItem(input: input, preset: preset, identity: identity, outputs: [])
        item.outputs = outputs
        return item
    }

    private mutating func identity() -> InputIdentity? {
        var identity = InputIdentity()
        let ok = object { reader, key in
            switch key {
            case "content": identity.content = reader.optionalString()
            case "size": identity.size = reader.optionalInteger().map(Int.init)
            case "modifiedNs": identity.modifiedNs = reader.optionalInteger()
            case "etag": identity.etag = reader.optionalString()
            case "lastModified": identity.lastModified = reader.optionalString()
            default: return reader.skip()
            }
            return reader.ok
        }
        return ok ? identity : nil
    }

    private mutating func file() -> OutputFile? {
        var path: String?, node: String?, bytes: Int64?, width: Int64?, height: Int64?, format: String?, recipe: String?
        var notMade: String?
        let ok = object { reader, key in
            switch key {
            case "path": path = reader.string()
            case "node": node = reader.string()
            case "bytes": bytes = reader.optionalInteger()
            case "width": width = reader.optionalInteger()
            case "height": height = reader.optionalInteger()
            case "format": format = reader.optionalString()
            case "recipe": recipe = reader.optionalString()
            case "notMade": notMade = reader.optionalString()
            default: return reader.skip()
            }
            return reader.ok
        }
        guard ok, let path, let node, let bytes else { return nil }
        return OutputFile(path: path, node: node, bytes: Int(bytes), width: width.map(Int.init), height: height.map(Int.init),
                          format: format, recipe: recipe, notMade: notMade)
    }

    // MARK: - JSON

    /// False once anything did not read.
    private var ok = true

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func space() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        space()
        guard current == byte else { return false }
        at += 1
        return true
    }

    private mutating func object(_ member: (inout ManifestItemReader, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            space()
            guard let key = string(), take(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    private mutating func array(_ element: (inout ManifestItemReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    private mutating func null() -> Bool {
        space()
        guard at + 4 <= bytes.count, bytes[at] == UInt8(ascii: "n"), bytes[at + 1] == UInt8(ascii: "u"),
              bytes[at + 2] == UInt8(ascii: "l"), bytes[at + 3] == UInt8(ascii: "l") else { return false }
        at += 4
        return true
    }

    private mutating func optionalString() -> String? {
        if null() { return nil }
        return string()
    }

    private mutating func optionalInteger() -> Int64? {
        if null() { return nil }
        return integer()
    }

    private mutating func string() -> String? {
        space()
        guard current == UInt8(ascii: "\"") else { ok = false; return nil }
        at += 1
        let start = at
        var plain = true
        while let byte = current, byte != UInt8(ascii: "\"") {
            if byte == UInt8(ascii: "\\") { plain = false; at += 1 }
            at += 1
        }
        guard current == UInt8(ascii: "\"") else { ok = false; return nil }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
        at += 1
        if plain { return String(decoding: raw, as: UTF8.self) }
        return unescaped(raw)
    }

    private mutating func unescaped(_ raw: UnsafeRawBufferPointer) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            i += 1
            guard byte == UInt8(ascii: "\\") else { out.append(byte); continue }
            guard i < raw.count else { ok = false; return nil }
            let escape = raw[i]
            i += 1
            switch escape {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard i + 4 <= raw.count, let unit = UInt16(String(decoding: UnsafeRawBufferPointer(rebasing: raw[i..<i + 4]), as: UTF8.self), radix: 16) else {
                    ok = false
                    return nil
                }
                i += 4
                var units = [unit]
                // A surrogate pair is two escapes.
                if (0xD800..<0xDC00).contains(unit), i + 6 <= raw.count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u"),
                   let low = UInt16(String(decoding: UnsafeRawBufferPointer(rebasing: raw[i + 2..<i + 6]), as: UTF8.self), radix: 16) {
                    units.append(low)
                    i += 6
                }
                out.append(contentsOf: String(decoding: units, as: UTF16.self).utf8)
            default: out.append(escape)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func integer() -> Int64? {
        space()
        var negative = false
        if current == UInt8(ascii: "-") { negative = true; at += 1 }
        var value: Int64 = 0
        var digits = 0
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { ok = false; return nil }
            value = sum
            digits += 1
            at += 1
        }
        guard digits > 0 else { ok = false; return nil }
        return negative ? -value : value
    }

    /// Steps over a value of a key records do not have (written by a newer workbench).
    private mutating func skip() -> Bool {
        space()
        switch current {
        case UInt8(ascii: "{"): return object { reader, _ in reader.skip() }
        case UInt8(ascii: "["): return array { $0.skip() }
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "n"): return null()
        default:
            while let byte = current, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != UInt8(ascii: "]") { at += 1 }
            return true
        }
    }
}
