import Foundation

/// MurmurHash3 (x64, 128 bits) as 32 hex digits: the fingerprint of an input's bytes and of a
/// recipe's text. Fast (a photo hashes in a few milliseconds) and stable across machines and
/// versions; not a defence against someone crafting collisions on purpose.
public enum ContentHash {
    /// The hash of `data`.
    public static func hex(_ data: Data) -> String {
        data.withUnsafeBytes { hex(UnsafeRawBufferPointer($0)) }
    }

    /// The hash of a string's UTF-8 bytes.
    public static func hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hex(UnsafeRawBufferPointer($0)) }
    }

    /// The first 64 bits of the hash of `text` (keys over shards, claimed output paths).
    public static func number(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)).0 }
    }

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        let (h1, h2) = hash(bytes)
        return digits(h1) + digits(h2)
    }

    /// `value` as sixteen lowercase hex digits, leading zeros kept.
    public static func digits(_ value: UInt64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        appendDigits(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same digits appended to a byte buffer (for lines built as bytes).
    static func appendDigits(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8((value >> UInt64(shift)) & 15)
            bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }

    private static let c1: UInt64 = 0x87c3_7b91_1142_53d5
    private static let c2: UInt64 = 0x4cf5_ad43_2745_937f

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always) private static func fmix(_ k: UInt64) -> UInt64 {
        var k = k
        k ^= k >> 33
        k &*= 0xff51_afd7_ed55_8ccd
        k ^= k >> 33
        k &*= 0xc4ce_b9fe_1a85_ec53
        k ^= k >> 33
        return k
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let length = bytes.count
        var h1: UInt64 = 0, h2: UInt64 = 0
        let blocks = length / 16
        for i in 0..<blocks {
            var k1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 16, as: UInt64.self))
            var k2 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self))
            k1 &*= c1; k1 = rotl(k1, 31); k1 &*= c2; h1 ^= k1
            h1 = rotl(h1, 27); h1 &+= h2; h1 = h1 &* 5 &+ 0x52dc_e729
            k2 &*= c2; k2 = rotl(k2, 33); k2 &*= c1; h2 ^= k2
            h2 = rotl(h2, 31); h2 &+= h1; h2 = h2 &* 5 &+ 0x3849_5ab5
        }
        let tail = blocks * 16
        let rest = length - tail
        var k1: UInt64 = 0, k2: UInt64 = 0
        if rest > 8 {
            for i in stride(from: rest - 1, through: 8, by: -1) { k2 ^= UInt64(bytes[tail + i]) << UInt64((i - 8) * 8) }
            k2 &*= c2; k2 = rotl(k2, 33); k2 &*= c1; h2 ^= k2
        }
        if rest > 0 {
            for i in stride(from: min(rest, 8) - 1, through: 0, by: -1) { k1 ^= UInt64(bytes[tail + i]) << UInt64(i * 8) }
            k1 &*= c1; k1 = rotl(k1, 31); k1 &*= c2; h1 ^= k1
        }
        h1 ^= UInt64(length); h2 ^= UInt64(length)
        h1 &+= h2; h2 &+= h1
        h1 = fmix(h1); h2 = fmix(h2)
        h1 &+= h2; h2 &+= h1
        return (h1, h2)
    }
}
