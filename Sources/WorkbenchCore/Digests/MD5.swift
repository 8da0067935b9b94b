import Foundation

/// MD5 (RFC 1321), fed in pieces: S3's `Content-MD5` header and the ETag it gives an object
/// stored by one PUT. A checksum against damage in transit, not a defence against tampering.
public struct MD5: Sendable {
    private static let s: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                      5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                      4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                      6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    // floor(abs(sin(i + 1)) * 2^32), as the RFC tabulates.
    private static let k: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64((abs(sin(Double($0 + 1))) * 4_294_967_296).rounded(.down))) }

    private var running = BlockDigest((0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476), order: .little, compress: compress,
                                      words: { [$0.0, $0.1, $0.2, $0.3] })

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        running.update(bytes)
    }

    /// The 16-byte digest of everything added.
    public mutating func finish() -> [UInt8] {
        running.finish()
    }

    /// The digest of `bytes`.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hash = MD5()
        hash.update(bytes)
        return hash.finish()
    }

    private static func compress(_ h: inout (UInt32, UInt32, UInt32, UInt32), _ block: UnsafeRawBufferPointer) {
        // Little-endian words, read in place.
        func m(_ g: Int) -> UInt32 {
            UInt32(block[g * 4]) | UInt32(block[g * 4 + 1]) << 8 | UInt32(block[g * 4 + 2]) << 16 | UInt32(block[g * 4 + 3]) << 24
        }
        var (a, b, c, d) = h
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16: f = (b & c) | (~b & d); g = i
            case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
            case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
            default: f = c ^ (b | ~d); g = (7 * i) % 16
            }
            f = f &+ a &+ k[i] &+ m(g)
            a = d
            d = c
            c = b
            b = b &+ f.rotatedLeft(s[i])
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d)
    }
}
