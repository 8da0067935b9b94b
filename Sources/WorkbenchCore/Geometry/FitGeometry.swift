/// What fitting one image into a box comes to, worked out once from the image's header: the
/// factor the box asks for, the JPEG DCT scale a decode may take, the pixels that scale leaves,
/// and the reduce that follows. This is libvips' thumbnail arithmetic, in one place: the direct
/// path, libvips' path, a cascade's sizes, `explain` and serve's previews read it rather than
/// work out a ratio of their own.
///
/// Sizes are in the image's stored orientation; a box given upright is turned to match
/// (`orientation` 5–8 swaps its axes), as libvips sizes a turned photo before turning it.
public struct FitGeometry: Sendable, Equatable {
    /// A width and a height in pixels.
    public struct Size: Sendable, Equatable, CustomStringConvertible {
        public var width: Int
        public var height: Int

        public init(_ width: Int, _ height: Int) {
            (self.width, self.height) = (width, height)
        }

        /// "1920×1280".
        public var description: String { "\(width)×\(height)" }
    }

    /// How the box is filled.
    public enum Filling: Sendable, Equatable {
        /// Inside the box, keeping the aspect ratio: the tighter axis decides.
        case contain
        /// Covering the box (then cropped): the looser axis decides.
        case cover
        /// Stretched to the box: each axis its own factor.
        case stretch
    }

    /// The image as stored.
    public let image: Size
    /// The box in the stored orientation; nil on an axis it leaves free.
    public let boxWidth: Int?
    public let boxHeight: Int?
    public let filling: Filling
    /// How many times larger the image is than the box on the deciding axis (above 1: it
    /// shrinks; 1 or less: it is kept or enlarged).
    public let factor: Double
    /// The JPEG DCT scale (1, 2, 4, 8) a decode is made at: the largest that leaves `headroom`
    /// times the box (libvips' rule at 2, `fastShrink` at 1); 1 without a headroom.
    public let jpegShrink: Int
    /// What that scale leaves: libjpeg rounds a scaled size up, and libvips keeps
    /// floor(size / shrink) of it.
    public let loaded: Size
    /// What the loaded pixels are reduced to inside the box, never enlarged: rounded from the
    /// loaded size, as a reduce after the DCT scale rounds.
    public let reduced: Size
    /// The deciding factor of the loaded pixels against the box.
    private let loadedFactor: Double

    /// - Parameters:
    ///   - image: the stored size, from the header.
    ///   - orientation: the EXIF orientation; 5–8 turn the box to the stored axes.
    ///   - width, height: the box, upright; nil leaves an axis free.
    ///   - headroom: how much larger than the box a DCT scale leaves the image; nil for no DCT
    ///     scale (not a JPEG, or the load size left to libvips).
    public init(image: Size, orientation: Int = 1, width: Int?, height: Int?, filling: Filling = .contain, headroom: Double? = nil) {
        let turned = orientation >= 5
        self.image = image
        (boxWidth, boxHeight) = turned ? (height, width) : (width, height)
        self.filling = filling
        let factor = Self.factor(width: Double(image.width), height: Double(image.height), boxWidth: boxWidth.map(Double.init),
                                 boxHeight: boxHeight.map(Double.init), covering: filling == .cover)
        let shrink = headroom.map { Self.jpegShrink(factor: factor, smallerSide: min(image.width, image.height), headroom: $0) } ?? 1
        (self.factor, jpegShrink) = (factor, shrink)
        let loaded = Size(max(1, image.width / shrink), max(1, image.height / shrink))
        let loadedFactor = Self.factor(width: Double(loaded.width), height: Double(loaded.height), boxWidth: boxWidth.map(Double.init),
                                       boxHeight: boxHeight.map(Double.init), covering: filling == .cover)
        (self.loaded, self.loadedFactor) = (loaded, loadedFactor)
        reduced = loadedFactor > 1 ? Self.divided(loaded, by: loadedFactor) : loaded
    }

    /// How many times larger a `width` × `height` image is than the box on the axis that
    /// decides: the larger of the two ratios for a fit inside, the smaller for a cover. An axis
    /// the box leaves free does not decide; with both free the image is kept (1).
    public static func factor(width: Double, height: Double, boxWidth: Double?, boxHeight: Double?, covering: Bool = false) -> Double {
        // Computed for every resize of every item: no array on the way.
        switch (boxWidth.map { width / $0 }, boxHeight.map { height / $0 }) {
        case let (x?, y?): return covering ? min(x, y) : max(x, y)
        case let (x?, nil): return x
        case let (nil, y?): return y
        case (nil, nil): return 1
        }
    }

    /// The largest JPEG DCT scale (8, 4, 2; else 1) that leaves `headroom` times the target for a
    /// reduction by `factor` — libvips' rule at 2 (8 from a factor of 16, 4 from 8, 2 from 4) —
    /// leaving at least two pixels on the shorter axis, as libvips 8.14's thumbnail does (a
    /// strip 9 pixels tall loads at 1/4, not at 1/8, where libvips keeps floor(9 / 8) = 1 of its
    /// rows and the thumbnail is that row's colour).
    public static func jpegShrink(factor: Double, smallerSide: Int, headroom: Double) -> Int {
        [8, 4, 2].first { Double($0) * headroom <= factor && 2 * $0 <= smallerSide } ?? 1
    }

    /// The whole image fitted inside the box, rounded once from the image's size (as libvips'
    /// thumbnail of it is): nil when the box does not shrink it.
    public var fitted: Size? {
        guard filling == .contain, factor > 1 else { return nil }
        return Self.divided(image, by: factor)
    }

    /// How many times `reduced` is smaller than `loaded` on each axis (a resampler's shrink).
    public var reducedBy: (x: Double, y: Double) {
        (Double(loaded.width) / Double(reduced.width), Double(loaded.height) / Double(reduced.height))
    }

    /// Whether the loaded pixels are reduced after the DCT scale (or only decoded at it).
    public var reduces: Bool { reduced != loaded }

    /// The factors a reduce of the loaded pixels shrinks each axis by, when all the fit does
    /// after the DCT scale is reduce (libvips 8.14's thumbnail: the deciding ratio on both axes,
    /// or each axis its own when stretched): nil for a cover (it crops), an enlargement, or no
    /// change.
    public var reduction: (x: Double, y: Double)? {
        guard filling != .cover else { return nil }
        let ratioX = boxWidth.map { Double(loaded.width) / Double($0) } ?? 0
        let ratioY = boxHeight.map { Double(loaded.height) / Double($0) } ?? 0
        let shrink = filling == .stretch ? (x: ratioX, y: ratioY) : (x: loadedFactor, y: loadedFactor)
        guard shrink.x >= 1, shrink.y >= 1, shrink.x > 1 || shrink.y > 1 else { return nil }
        return shrink
    }

    private static func divided(_ size: Size, by factor: Double) -> Size {
        Size(max(1, Int((Double(size.width) / factor).rounded())), max(1, Int((Double(size.height) / factor).rounded())))
    }
}
