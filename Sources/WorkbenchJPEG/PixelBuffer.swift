import Glibc

/// Samples in memory of their own, from `malloc`, so libvips can take them over without a copy
/// (and `free` them when its image closes). Failing to get the memory is an answer, not a crash.
public final class PixelBuffer {
    public let bytes: UnsafeMutableBufferPointer<UInt8>
    private var owned = true

    /// Nil when the memory cannot be had.
    init?(count: Int) {
        guard count >= 0, let memory = malloc(max(1, count)) else { return nil }
        bytes = UnsafeMutableBufferPointer(start: memory.assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// The memory, which the caller now owns and must `free`.
    public func handOver() -> UnsafeMutableRawPointer? {
        owned = false
        return UnsafeMutableRawPointer(bytes.baseAddress)
    }

    deinit {
        if owned { free(bytes.baseAddress) }
    }
}
