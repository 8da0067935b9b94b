/// What the direct path needs to know of an embedded ICC profile: whether it describes sRGB, so
/// that converting through it to sRGB (what libvips does) would leave the pixels as they are —
/// such a file is decoded as a plain one, and its profile written back as libvips writes it.
/// Read from the profile's header and tags (ICC.1): its name, device space and primaries.
public struct ICCProfile: Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The profile's description ('desc': ICC v2 text or v4 multi-language), if it has one.
    public var description: String? {
        guard let (offset, size) = tag("desc"), size >= 12 else { return nil }
        switch string(at: offset, length: 4) {
        case "desc":
            let count = Int(uint32(at: offset + 8))
            guard count > 0, offset + 12 + count <= bytes.count else { return nil }
            return String(decoding: bytes[(offset + 12)..<(offset + 12 + count)].prefix { $0 != 0 }, as: UTF8.self)
        case "mluc":
            guard uint32(at: offset + 8) > 0, size >= 28 else { return nil }
            let length = Int(uint32(at: offset + 20)), start = offset + Int(uint32(at: offset + 24))
            guard start + length <= bytes.count else { return nil }
            let units = stride(from: start, to: start + length - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }

    /// sRGB's primaries adapted to the profile connection space's D50 white (IEC 61966-2-1 as
    /// every sRGB profile states them, to four places).
    static let sRGBPrimaries: [(tag: String, xyz: (Double, Double, Double))] = [
        ("rXYZ", (0.4361, 0.2225, 0.0139)), ("gXYZ", (0.3851, 0.7169, 0.0971)), ("bXYZ", (0.1431, 0.0606, 0.7141)),
    ]

    /// An RGB profile named sRGB whose primaries are sRGB's: converting through it to sRGB
    /// changes nothing a JPEG can hold.
    public var isSRGB: Bool {
        guard bytes.count >= 132, string(at: 16, length: 4) == "RGB ", string(at: 20, length: 4) == "XYZ ",
              description?.contains("sRGB") == true else { return false }
        for (name, expected) in Self.sRGBPrimaries {
            guard let (offset, size) = tag(name), size >= 20, string(at: offset, length: 4) == "XYZ " else { return false }
            let xyz = (fixed(at: offset + 8), fixed(at: offset + 12), fixed(at: offset + 16))
            guard abs(xyz.0 - expected.0) < 0.005, abs(xyz.1 - expected.1) < 0.005, abs(xyz.2 - expected.2) < 0.005 else { return false }
        }
        return true
    }

    /// Where the tag `signature` is, from the tag table after the 128-byte header.
    private func tag(_ signature: String) -> (offset: Int, size: Int)? {
        guard bytes.count >= 132 else { return nil }
        let count = Int(uint32(at: 128))
        for entry in 0..<min(count, (bytes.count - 132) / 12) {
            let at = 132 + 12 * entry
            guard string(at: at, length: 4) == signature else { continue }
            let offset = Int(uint32(at: at + 4)), size = Int(uint32(at: at + 8))
            guard offset + size <= bytes.count else { return nil }
            return (offset, size)
        }
        return nil
    }

    private func uint32(at offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        return bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// An s15Fixed16Number.
    private func fixed(at offset: Int) -> Double { Double(Int32(bitPattern: uint32(at: offset))) / 65536 }

    private func string(at offset: Int, length: Int) -> String {
        guard offset + length <= bytes.count else { return "" }
        return String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
    }
}
