import Testing
@testable import WorkbenchDirect

/// libdeflate as the PNG decoder asks it: a CRC as PNG checks it, and a zlib stream inflated
/// into exactly the room given, or the reason it was not.
@Suite struct DeflateTests {
    /// zlib's `compress(b"FilterWorkbench " * 8)`.
    static let stream: [UInt8] = [120, 156, 115, 203, 204, 41, 73, 45, 10, 207, 47, 202, 78, 74, 205, 75, 206, 80, 112, 163, 51, 31, 0, 119,
                                  156, 49, 73]
    static let text = Array(String(repeating: "FilterWorkbench ", count: 8).utf8)

    @Test func theCRCIsPNGs() {
        // The check value of CRC-32 ("123456789") and the CRC every PNG's IEND chunk carries.
        #expect(Array("123456789".utf8).withUnsafeBytes { Deflate.crc32($0.baseAddress!, count: $0.count) } == 0xCBF4_3926)
        #expect(Array("IEND".utf8).withUnsafeBytes { Deflate.crc32($0.baseAddress!, count: $0.count) } == 0xAE42_6082)
    }

    @Test func aStreamInflatesIntoExactlyItsRoomOrSaysWhy() {
        func inflate(_ stream: [UInt8], room: Int) -> (Deflate.Outcome, [UInt8]) {
            var out = [UInt8](repeating: 0, count: room)
            let outcome = stream.withUnsafeBytes { input in out.withUnsafeMutableBytes { Deflate.inflateZlib(input, into: $0.baseAddress!, count: room) } }
            return (outcome, out)
        }
        let whole = inflate(Self.stream, room: Self.text.count)
        #expect(whole.0 == .inflated && whole.1 == Self.text)
        #expect(inflate(Self.stream, room: Self.text.count - 1).0 == .moreThanRoom)
        // Room left over is a stream shorter than the header said: damage, as a cut-off one is.
        #expect(inflate(Self.stream, room: Self.text.count + 1).0 == .damaged)
        #expect(inflate(Array(Self.stream.prefix(12)), room: Self.text.count).0 == .damaged)
        var flipped = Self.stream
        flipped[1] ^= 0xFF
        #expect(inflate(flipped, room: Self.text.count).0 == .damaged)
    }
}
