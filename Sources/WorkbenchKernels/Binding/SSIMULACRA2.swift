import CMetrics

/// SSIMULACRA2, the perceptual score libjxl's tool and the `ssimulacra2` PyPI package compute:
/// 100 for identical images, about 90 visually lossless, 70 high quality, 50 medium, 30 low.
///
/// An original is prepared once (its colour transform, blurred means and variances at six
/// scales) and scores any number of candidates of its size; that is what an encode searching
/// for the quality setting that meets a score does. Pixels are 8-bit sRGB, grey or RGB; an
/// image with alpha is scored on a dark and a light background and the lower score counts, as
/// libjxl's tool does.
public final class SSIMULACRA2: Sendable {
    /// What a score cannot be computed for.
    public enum Refusal: Error, Sendable, CustomStringConvertible {
        /// Under 8 × 8 pixels: the metric's smallest scale needs that much.
        case tooSmall(width: Int, height: Int)
        /// A candidate of another size than the original.
        case sizeMismatch(original: (Int, Int), candidate: (Int, Int))
        case unsupportedBands(Int)
        /// Fewer bytes than the size, bands and stride say.
        case shortBuffer(bytes: Int, needed: Int)
        case outOfMemory

        public var description: String {
            switch self {
            case .tooSmall(let w, let h): return "SSIMULACRA2 needs an image of at least 8 × 8 pixels, not \(w) × \(h)"
            case .sizeMismatch(let a, let b): return "SSIMULACRA2 compares images of one size: the original is \(a.0) × \(a.1), the other \(b.0) × \(b.1)"
            case .unsupportedBands(let n): return "SSIMULACRA2 scores grey or RGB images, with or without alpha, not \(n) bands"
            case .shortBuffer(let bytes, let needed): return "SSIMULACRA2 was given \(bytes) bytes of pixels where the image needs \(needed)"
            case .outOfMemory: return "out of memory while computing SSIMULACRA2"
            }
        }
    }

    /// An 8-bit image in memory: `bands` samples a pixel, `stride` bytes a row.
    public struct Pixels {
        public let bytes: UnsafeRawBufferPointer
        public let width: Int
        public let height: Int
        public let bands: Int
        public let stride: Int

        public init(bytes: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int, stride: Int? = nil) {
            self.bytes = bytes
            self.width = width
            self.height = height
            self.bands = bands
            self.stride = stride ?? width * bands
        }

        /// Why these pixels cannot be read, or nil.
        var refusal: Refusal? {
            guard (1...4).contains(bands) else { return .unsupportedBands(bands) }
            let needed = height > 0 ? stride * (height - 1) + width * bands : 0
            return bytes.count < needed || bytes.baseAddress == nil || stride < width * bands ? .shortBuffer(bytes: bytes.count, needed: needed) : nil
        }
    }

    // Safe to share: the C references are only read after they are made (`wb_ssim2_score`
    // allocates its own scratch), and freed once, in deinit.
    private nonisolated(unsafe) let references: [OpaquePointer]
    public let width: Int
    public let height: Int
    private let hasAlpha: Bool

    /// The backgrounds an image with alpha is scored on (libjxl's tool: 0.1 and 0.9 grey).
    static let backgrounds: [UInt8] = [26, 230]

    /// The smallest width and height scored: six scales need 8 × 8 at the first.
    public static let smallestSide = 8

    public init(original: Pixels) throws(Refusal) {
        guard original.width >= Self.smallestSide, original.height >= Self.smallestSide else { throw .tooSmall(width: original.width, height: original.height) }
        if let refusal = original.refusal { throw refusal }
        (width, height, hasAlpha) = (original.width, original.height, original.bands == 2 || original.bands == 4)
        var made: [OpaquePointer] = []
        for background in hasAlpha ? Self.backgrounds : [0] {
            let reference: OpaquePointer? = Self.opaque(original, background: background) { base, stride, bands in
                wb_ssim2_reference_new(base, Int32(original.width), Int32(original.height), stride, Int32(bands))
            }
            guard let reference else {
                made.forEach { wb_ssim2_reference_free($0) }
                throw .outOfMemory
            }
            made.append(reference)
        }
        references = made
    }

    deinit {
        references.forEach { wb_ssim2_reference_free($0) }
    }

    /// The candidate's score against the original.
    public func score(_ candidate: Pixels) throws(Refusal) -> Double {
        guard candidate.width == width, candidate.height == height else {
            throw .sizeMismatch(original: (width, height), candidate: (candidate.width, candidate.height))
        }
        if let refusal = candidate.refusal { throw refusal }
        var lowest = Double.infinity
        for (reference, background) in zip(references, hasAlpha ? Self.backgrounds : [0]) {
            let score = Self.opaque(candidate, background: background) { base, stride, bands in
                wb_ssim2_score(reference, base, stride, Int32(bands))
            }
            guard let score, score.isFinite else { throw .outOfMemory }
            lowest = min(lowest, score)
        }
        return lowest
    }

    /// The score of two images of one size.
    public static func score(original: Pixels, candidate: Pixels) throws(Refusal) -> Double {
        try SSIMULACRA2(original: original).score(candidate)
    }

    /// Calls `body` with grey or RGB pixels: as they are, or with alpha blended onto `background`.
    /// The pixels have been checked (`Pixels.refusal`).
    private static func opaque<T>(_ pixels: Pixels, background: UInt8, _ body: (UnsafePointer<UInt8>, Int, Int) -> T?) -> T? {
        let bands = pixels.bands
        if bands == 1 || bands == 3, let base = pixels.bytes.baseAddress {
            return body(base.assumingMemoryBound(to: UInt8.self), pixels.stride, bands)
        }
        let colours = bands - 1
        var blended = [UInt8](repeating: 0, count: pixels.width * pixels.height * colours)
        let b = Int(background)
        for y in 0..<pixels.height {
            let row = pixels.stride * y
            for x in 0..<pixels.width {
                let at = row + x * bands
                let alpha = Int(pixels.bytes[at + colours])
                for c in 0..<colours {
                    blended[(y * pixels.width + x) * colours + c] = UInt8((Int(pixels.bytes[at + c]) * alpha + b * (255 - alpha) + 127) / 255)
                }
            }
        }
        return blended.withUnsafeBufferPointer { buffer in buffer.baseAddress.flatMap { body($0, pixels.width * colours, colours) } }
    }
}
