import Glibc

/// A PNG's pixels (8- or 16-bit, 1, 2 or 4 for grey and palettes, interlaced or not), inflated
/// by libdeflate (3.5× zlib's speed on product shots) and unfiltered: the samples libpng gives
/// libvips for the same file, interleaved, 16-bit ones in the machine's byte order, with a
/// palette or a `tRNS` colour expanded as libvips expands them (RGB, or RGBA with transparency;
/// grey and alpha stay 1 or 2 bands).
///
/// Only the pixels: what a file carries besides them libvips reads from its header. Anything
/// this decoder does not read exactly as libpng would, or that libpng would warn of, is refused
/// with the reason, and the caller leaves the file to libvips: animation, a damaged chunk (every
/// CRC is checked), a zlib stream that does not hold the image exactly, a palette index past the
/// palette.
public final class PNGDecoder {
    public let width: Int
    public let height: Int
    /// 1 grey, 2 grey and alpha, 3 RGB, 4 RGBA.
    public let bands: Int
    /// 1, or 2 for a 16-bit PNG.
    public let bytesPerSample: Int
    private var samples: UnsafeMutableRawPointer?

    /// The pixels' bytes: width × height × bands × bytes a sample.
    public var byteCount: Int { width * height * bands * bytesPerSample }

    /// The samples, owned by the caller from now on (to be freed with `free`); nil once handed over.
    public func handOver() -> UnsafeMutableRawPointer? {
        defer { samples = nil }
        return samples
    }

    /// `body` with the samples, while this decoder still owns them; nil once handed over.
    public func withSamples<Result>(_ body: (UnsafeRawPointer) -> Result) -> Result? {
        samples.map { body(UnsafeRawPointer($0)) }
    }

    /// A copy of the samples (for tests).
    public var pixels: [UInt8] {
        guard let samples else { return [] }
        return Array(UnsafeRawBufferPointer(start: samples, count: byteCount))
    }

    deinit { free(samples) }

    /// The most bytes of image data the decoder holds (8 MP of RGBA): it keeps the whole image,
    /// where libpng streams rows to libvips, so a larger PNG is left to libpng.
    public static let largestImage = 32 << 20

    /// Decodes `data`, refusing an image of more than `maxPixels` pixels, or of more than
    /// `largestImage` bytes of samples, before taking memory.
    public init(_ data: UnsafeRawBufferPointer, maxPixels: Int) throws(PNGRefusal) {
        let file = try Self.chunks(data, maxPixels: maxPixels)
        let header = file.header
        width = header.width
        height = header.height
        bands = header.outputBands(transparency: file.transparency != nil)
        bytesPerSample = header.depth == 16 ? 2 : 1
        let stride = header.rowBytes
        let rowsCount = header.height * (1 + stride)
        guard let raw = malloc(max(1, rowsCount)) else { throw .noMemory("\(rowsCount) bytes") }
        var keep = false
        defer { if !keep { free(raw) } }
        let rows = raw.assumingMemoryBound(to: UInt8.self)
        if header.interlaced {
            let count = PNGInterlace.passes.indices.reduce(0) { $0 + PNGInterlace.byteCount(of: $1, header) }
            guard let passes = malloc(max(1, count)) else { throw .noMemory("\(count) bytes") }
            defer { free(passes) }
            try Self.inflate(file.imageData, into: passes, count: count, data: data)
            try PNGInterlace.deinterlace(passes.assumingMemoryBound(to: UInt8.self), into: rows, header)
        } else {
            try Self.inflate(file.imageData, into: raw, count: rowsCount, data: data)
            try PNGFilters.unfilter(rows, rows: header.height, stride: stride, bytesPerPixel: header.filterUnit)
        }
        if bands == header.channels && header.depth >= 8 {
            // The samples as they are: each row moved down over the filter bytes, in the same
            // memory (a second buffer of a large PNG costs its page faults again).
            for y in 0..<header.height { (rows + y * stride).update(from: rows + (y * (stride + 1) + 1), count: stride) }
            if header.depth == 16 { PNGExpansion.toMachineOrder(rows, count: width * height * bands) }
            samples = raw
            keep = true
            return
        }
        guard let out = malloc(max(1, byteCount)) else { throw .noMemory("the pixels") }
        samples = out
        try PNGExpansion.expand(rows, header: header, palette: file.palette, transparency: file.transparency,
                                into: out.assumingMemoryBound(to: UInt8.self), bands: bands)
    }

    /// Why the decoder would leave `data` to libpng, from its chunks alone (nothing inflated);
    /// nil when it would decode it (unless its image data turns out damaged).
    public static func refusal(_ data: UnsafeRawBufferPointer, maxPixels: Int) -> PNGRefusal? {
        do {
            _ = try chunks(data, maxPixels: maxPixels)
            return nil
        } catch {
            return error
        }
    }

    /// `data`'s chunks, with the image's size within the decoder's limits.
    private static func chunks(_ data: UnsafeRawBufferPointer, maxPixels: Int) throws(PNGRefusal) -> PNGChunks {
        let file = try PNGChunks(data)
        let header = file.header
        guard header.width * header.height <= maxPixels else { throw .morePixelsThanAllowed }
        guard header.height * (1 + header.rowBytes) <= largestImage else {
            throw .tooLarge(limitMiB: largestImage >> 20)
        }
        return file
    }

    /// The IDAT chunks' zlib stream, which must inflate to exactly `count` bytes.
    private static func inflate(_ ranges: [Range<Int>], into raw: UnsafeMutableRawPointer, count: Int,
                                data: UnsafeRawBufferPointer) throws(PNGRefusal) {
        // One chunk (the common case) is inflated in place; several are joined first.
        var joined: [UInt8] = []
        if ranges.count > 1 {
            // In one allocation: libvips writes IDAT chunks of 8 KiB, a hundred for a product shot.
            joined.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
            for range in ranges { joined += UnsafeRawBufferPointer(rebasing: data[range]) }
        }
        let outcome = ranges.count == 1
            ? Deflate.inflateZlib(UnsafeRawBufferPointer(rebasing: data[ranges[0]]), into: raw, count: count)
            : joined.withUnsafeBytes { Deflate.inflateZlib($0, into: raw, count: count) }
        switch outcome {
        case .inflated: return
        case .moreThanRoom: throw .moreDataThanHeaderSays
        case .damaged: throw .dataDoesNotInflate
        case .noMemory: throw .noMemory("a decompressor")
        }
    }
}
