import Glibc

/// A component's kept coefficients, `kept`×`kept` a block, block after block (row-major within
/// the block), and which of each block's 64 coefficients are nonzero so far (bit k for zigzag
/// position k). Memory of its own from `calloc`, written in place by the scans: no copy-on-write
/// in the way, and no crash when the memory cannot be had.
final class CoefficientStore {
    let values: UnsafeMutablePointer<Int16>
    let nonzero: UnsafeMutablePointer<UInt64>
    let count: Int

    /// The bytes a store of this shape takes.
    static func bytes(blocks: Int, kept: Int) -> Int {
        blocks * (kept * kept * 2 + 8)
    }

    /// Nil when the memory cannot be had.
    init?(blocks: Int, kept: Int) {
        guard let values = calloc(max(1, blocks * kept * kept), 2) else { return nil }
        guard let nonzero = calloc(max(1, blocks), 8) else { free(values); return nil }
        self.values = values.assumingMemoryBound(to: Int16.self)
        self.nonzero = nonzero.assumingMemoryBound(to: UInt64.self)
        count = blocks
    }

    deinit {
        free(values)
        free(nonzero)
    }
}
