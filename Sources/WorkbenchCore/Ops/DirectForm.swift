/// What a node's parameters make of it on the direct path (libjpeg and our own resampler, no
/// libvips image), for the planner: a decode followed only by a `.fit` and then a
/// `.jpegEncode` runs as one chain there. Ops give one through `OpSpec.directForm`; nil when
/// the parameters ask for something the direct path does not do.
public enum DirectForm: Sendable, Equatable {
    /// Fits the image inside a box, never enlarging.
    case fit(FitBox)
    /// Encodes to JPEG at a quality, with libvips' other settings and default metadata.
    case jpegEncode(quality: Int)
}

/// The chain after a decode that the direct path can run, as the planner found it.
public struct DirectChain: Sendable, Equatable {
    public let box: FitBox
    public let quality: Int

    public init(box: FitBox, quality: Int) {
        self.box = box
        self.quality = quality
    }

    /// Below quality 90 libvips' JPEG encoder writes 4:2:0 chroma: a YCbCr file's planes can go
    /// straight through.
    public var encodesSubsampled: Bool { quality < 90 }
}
