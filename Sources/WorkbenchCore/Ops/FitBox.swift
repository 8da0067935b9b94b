/// What a resizing op tells the planner about one of its nodes: it fits the image inside a box,
/// keeping the aspect ratio and never enlarging (libvips' `thumbnail` at its defaults), so a
/// smaller box can be made from a larger box's result instead of from the full image.
///
/// Ops give one through `OpSpec.fitBox`; the planner never reads their parameters itself.
public struct FitBox: Sendable, Equatable {
    /// The box, nil on an axis it leaves free.
    public let width: Int?
    public let height: Int?
    /// How much larger than the box a JPEG's DCT scale leaves the image when the resize decodes
    /// the file itself: 2 is libvips' rule, 1 `fastShrink`. Two resizes feed one another only
    /// with the same headroom.
    public let headroom: Double
    /// Of a node written with `foreach`: a copy whose image comes out the same as a smaller
    /// box's copy (the image fits both) is still made, encoded and written. Off by default: such
    /// a copy is left out (`NodePlan.smallerCopies`).
    public let makesRepeats: Bool

    public init(width: Int?, height: Int?, headroom: Double = 2, makesRepeats: Bool = false) {
        self.width = width
        self.height = height
        self.headroom = headroom
        self.makesRepeats = makesRepeats
    }

    /// Whether an image of this size fits inside the box as it is, so fitting leaves it unchanged.
    public func holds(width w: Int, height h: Int) -> Bool {
        (width.map { w <= $0 } ?? true) && (height.map { h <= $0 } ?? true)
    }

    /// libvips' rule for shrinking in steps: leave at least a factor of 2 for the last resize,
    /// so that a smaller size made from a larger one loses nothing a resize from the full image
    /// would keep. How many times larger `self` is than `smaller`, or nil when they cannot be
    /// compared (different free axes or headroom).
    public func factor(over smaller: FitBox) -> Double? {
        guard headroom == smaller.headroom, (width == nil) == (smaller.width == nil), (height == nil) == (smaller.height == nil),
              width != nil || height != nil else { return nil }
        let ratios = [width.flatMap { w in smaller.width.map { Double(w) / Double($0) } },
                      height.flatMap { h in smaller.height.map { Double(h) / Double($0) } }].compactMap { $0 }
        return ratios.min()
    }

    /// The smallest factor a cascade keeps (libvips' own, for its shrink-on-load).
    public static let cascadeFactor = 2.0

    /// "1920 wide", "480×320".
    public var description: String {
        switch (width, height) {
        case let (w?, h?): return "\(w)×\(h)"
        case let (w?, nil): return "\(w) wide"
        case let (nil, h?): return "\(h) high"
        default: return "any size"
        }
    }
}

/// What any resizing op asks of a node, for those who work out sizes without running it (the
/// live page's previews): a box or a scale, whether the box's shape frames the image (`cover`,
/// `fill`), whether it may enlarge. Ops give one through `OpSpec.resizeRequest`.
public struct ResizeRequest: Sendable, Equatable {
    public var width: Int?
    public var height: Int?
    public var scale: Double?
    /// The box's shape decides the framing (`cover` or `fill`), not only its size.
    public var framed: Bool
    public var upscale: Bool

    public init(width: Int?, height: Int?, scale: Double?, framed: Bool, upscale: Bool) {
        self.width = width
        self.height = height
        self.scale = scale
        self.framed = framed
        self.upscale = upscale
    }
}
