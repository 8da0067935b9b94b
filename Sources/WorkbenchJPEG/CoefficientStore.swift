import Glibc

/// A component's kept coefficients, `kept`×`kept` a block, block after block (row-major within
/// the block), and which of each block's 64 coefficients are nonzero so far (bit k for zigzag
/// position k). Memory of its own, written in place by the scans: no copy-on-write in the way,
/// and no crash when the memory cannot be had.
final class CoefficientStore {
    let values: UnsafeMutablePointer<Int16>
    let nonzero: UnsafeMutablePointer<UInt64>
    let count: Int
    private let valueBytes: Int, nonzeroBytes: Int

    /// The bytes a store of this shape takes.
    static func bytes(blocks: Int, kept: Int) -> Int {
        blocks * (kept * kept * 2 + 8)
    }

    /// Nil when the memory cannot be had.
    init?(blocks: Int, kept: Int) {
        valueBytes = max(1, blocks * kept * kept) * 2
        nonzeroBytes = max(1, blocks) * 8
        guard let values = Self.allocate(valueBytes) else { return nil }
        guard let nonzero = Self.allocate(nonzeroBytes) else { Self.release(values, valueBytes); return nil }
        self.values = values.assumingMemoryBound(to: Int16.self)
        self.nonzero = nonzero.assumingMemoryBound(to: UInt64.self)
        count = blocks
    }

    deinit {
        Self.release(values, valueBytes)
        Self.release(nonzero, nonzeroBytes)
    }

    /// Stores from this size up are mapped on their own, as glibc would map them anyway.
    private static let mappedFrom = 1 << 18

    /// Zeroed memory. A large store is mapped and its pages made at once (huge pages where the
    /// system gives them on request): every page is written by the scans anyway, and a page
    /// first read (a block's nonzero mask) is otherwise mapped to the shared zero page, then
    /// copied on the first write, and the copy flushes the other cores' TLBs — 5% of workload
    /// W's CPU went to those flushes.
    private static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer? {
        guard bytes >= mappedFrom else { return calloc(bytes, 1) }
        guard let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED else {
            return nil
        }
        // Both are requests: where the kernel declines, pages are made as they are touched.
        _ = madvise(mapped, bytes, MADV_HUGEPAGE)
        _ = madvise(mapped, bytes, populateWrite)
        return mapped
    }

    private static func release(_ pointer: UnsafeMutableRawPointer, _ bytes: Int) {
        if bytes >= mappedFrom { munmap(pointer, bytes) } else { free(pointer) }
    }

    /// `MADV_POPULATE_WRITE` (Linux 5.14), which Glibc's module does not name.
    private static let populateWrite: Int32 = 23
}
