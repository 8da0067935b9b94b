/// SHA-256 (FIPS 180-4), fed in pieces: what `sha256sum` prints for a packed plugin's files, and
/// the digest S3 request signatures and checksums are made of.
public struct SHA256: Sendable {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var running = BlockDigest((0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19),
                                      order: .big, compress: compress, words: { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7] })

    public init() {}

    /// Adds bytes to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        running.update(bytes)
    }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything added.
    public mutating func finish() -> [UInt8] {
        running.finish()
    }

    /// The digest of `bytes`.
    public static func digest<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finish()
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.string(digest(bytes))
    }

    private typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    private static func compress(_ h: inout State, _ block: UnsafeRawBufferPointer) {
        h = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(block[i * 4]) << 24 | UInt32(block[i * 4 + 1]) << 16 | UInt32(block[i * 4 + 2]) << 8 | UInt32(block[i * 4 + 3])
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotated(7) ^ w[i - 15].rotated(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotated(17) ^ w[i - 2].rotated(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = h
            for i in 0..<64 {
                let t1 = hh &+ (e.rotated(6) ^ e.rotated(11) ^ e.rotated(25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (a.rotated(2) ^ a.rotated(13) ^ a.rotated(22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            return (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }
}

extension UInt32 {
    @inline(__always) func rotated(_ n: UInt32) -> UInt32 { self >> n | self << (32 - n) }
    @inline(__always) func rotatedLeft(_ n: UInt32) -> UInt32 { self << n | self >> (32 - n) }
}
