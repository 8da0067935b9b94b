import CDeflate

/// libdeflate in Swift's terms: what the PNG decoder asks of it.
enum Deflate {
    /// How an inflate ended.
    enum Outcome {
        case inflated
        /// The stream holds more than the room given.
        case moreThanRoom
        /// Not a zlib stream, damaged, or shorter than the room given.
        case damaged
        /// No memory for a decompressor.
        case noMemory
    }

    /// CRC-32 of `count` bytes at `bytes` (PNG's chunk check).
    static func crc32(_ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
        UInt32(libdeflate_crc32(0, bytes, count))
    }

    /// Inflates the zlib stream `stream` into exactly `count` bytes at `output`.
    static func inflateZlib(_ stream: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, count: Int) -> Outcome {
        guard let decompressor = libdeflate_alloc_decompressor() else { return .noMemory }
        defer { libdeflate_free_decompressor(decompressor) }
        var produced = 0
        let result = libdeflate_zlib_decompress(decompressor, stream.baseAddress, stream.count, output, count, &produced)
        if result == LIBDEFLATE_SUCCESS && produced == count { return .inflated }
        return result == LIBDEFLATE_INSUFFICIENT_SPACE ? .moreThanRoom : .damaged
    }
}
