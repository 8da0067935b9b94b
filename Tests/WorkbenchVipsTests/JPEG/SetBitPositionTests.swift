import Testing
@testable import WorkbenchJPEG

/// Refinement scans find where a run of zeros ends with a word-at-a-time select; a wrong answer
/// would shift every later coefficient of the block, so it is checked against counting bit by bit.
struct SetBitPositionTests {
    @Test func findsEverySetBitOfManyWords() {
        var generator = SystemRandomNumberGenerator()
        let words: [UInt64] = [0, 1, 1 << 63, .max, 0x8000_0000_0000_0001, 0x00FF_00FF_00FF_00FF]
            + (0..<2_000).map { _ in UInt64.random(in: .min ... .max, using: &generator) & UInt64.random(in: .min ... .max, using: &generator) }
        ProgressiveScan.setBitPositions.withUnsafeBufferPointer { table in
            for word in words {
                let expected = (0..<64).filter { word >> UInt64($0) & 1 == 1 }
                for n in 0..<64 {
                    let found = ProgressiveScan.position(ofSetBit: n, in: word, table.baseAddress!)
                    #expect(found == (n < expected.count ? expected[n] : 64), "bit \(n) of \(String(word, radix: 16))")
                }
            }
        }
    }
}
