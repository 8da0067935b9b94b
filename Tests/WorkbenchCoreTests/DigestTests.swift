import Foundation
import Testing
import WorkbenchCore

/// SHA-256, MD5 and HMAC-SHA256 against their standards' published values, and fed in pieces
/// of every size across block boundaries.
@Suite struct DigestTests {
    @Test func sha256MatchesFIPSExamples() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func md5MatchesRFC1321Examples() {
        func md5(_ text: String) -> String { Hex.string(Array(text.utf8).withUnsafeBytes { MD5.digest($0) }) }
        #expect(md5("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(md5("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(md5("12345678901234567890123456789012345678901234567890123456789012345678901234567890") == "57edf4a22be3c955ac49da2e2107b67a")
    }

    @Test func piecesGiveTheDigestOfTheWhole() {
        let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.digest(bytes)
        let wholeMD5 = bytes.withUnsafeBytes { MD5.digest($0) }
        for piece in [1, 7, 63, 64, 65, 200] {
            var sha = SHA256(), md5 = MD5()
            for start in stride(from: 0, to: bytes.count, by: piece) {
                let part = Array(bytes[start..<min(bytes.count, start + piece)])
                part.withUnsafeBytes { sha.update($0); md5.update($0) }
            }
            #expect(sha.finish() == whole, "pieces of \(piece)")
            #expect(md5.finish() == wholeMD5, "pieces of \(piece)")
        }
    }

    @Test func hmacMatchesRFC4231() {
        // Test case 2: key "Jefe".
        #expect(Hex.string(HMAC.sha256(key: Array("Jefe".utf8), "what do ya want for nothing?"))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than a block.
        #expect(Hex.string(HMAC.sha256(key: [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First"))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
