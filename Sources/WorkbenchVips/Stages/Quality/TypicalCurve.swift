/// A format's usual SSIMULACRA2 against its quality setting on photos: where a search with no
/// earlier answer starts, and the slope it first steps by. Medians over the 25 reference photos
/// at 960 px with libvips' savers (JPEG's jump at Q 90 included); formats not measured take
/// libjpeg's scale.
struct TypicalCurve: Sendable {
    /// Points of (score, quality), both rising.
    let points: [(score: Double, quality: Double)]

    static let jpeg = TypicalCurve(points: [(46, 30), (67.6, 60), (74.8, 72), (80.3, 80), (84.6, 88), (90.1, 92), (93.3, 96)])
    static let webp = TypicalCurve(points: [(65.6, 60), (70.2, 72), (75.2, 80), (78.1, 84), (81.0, 88), (84.4, 92), (88.0, 96)])

    static func of(format: String) -> TypicalCurve { format == "webp" ? webp : jpeg }

    /// The quality at which a photo usually scores `score`.
    func quality(for score: Double) -> Int {
        guard let first = points.first, let last = points.last else { return 80 }
        if score <= first.score { return Int(first.quality) }
        if score >= last.score { return 98 }
        let (a, b) = segment(containing: score)
        return Int((a.quality + (score - a.score) / (b.score - a.score) * (b.quality - a.quality)).rounded())
    }

    /// Score points a quality step around `score`.
    func slope(at score: Double) -> Double {
        guard points.count > 1 else { return 1 }
        let (a, b) = segment(containing: score)
        return (b.score - a.score) / (b.quality - a.quality)
    }

    private func segment(containing score: Double) -> (a: (score: Double, quality: Double), b: (score: Double, quality: Double)) {
        for (a, b) in zip(points, points.dropFirst()) where score <= b.score { return (a, b) }
        return (points[points.count - 2], points[points.count - 1])
    }
}
