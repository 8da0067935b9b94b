/// A curve through control points that never overshoots: between two points it stays between
/// their values, and where the points rise (or fall) the curve does too (Fritsch–Carlson
/// monotone cubic interpolation, as photo editors' curve tools behave). Flat beyond the ends.
public struct MonotoneCurve: Sendable {
    private let xs: [Double]
    private let ys: [Double]
    private let slopes: [Double]

    /// `points` sorted by x, with distinct x (at least one point).
    public init(_ points: [(x: Double, y: Double)]) {
        xs = points.map(\.x)
        ys = points.map(\.y)
        let n = points.count
        guard n > 1 else {
            slopes = Array(repeating: 0, count: n)
            return
        }
        var secants = [Double](repeating: 0, count: n - 1)
        for i in 0..<(n - 1) {
            let rise: Double = ys[i + 1] - ys[i], run: Double = xs[i + 1] - xs[i]
            secants[i] = rise / run
        }
        var m = [Double](repeating: 0, count: n)
        m[0] = secants[0]
        m[n - 1] = secants[n - 2]
        for i in 1..<(n - 1) {
            m[i] = secants[i - 1] * secants[i] <= 0 ? 0 : (secants[i - 1] + secants[i]) / 2
        }
        // Limit the slopes so no segment overshoots.
        for i in 0..<(n - 1) {
            if secants[i] == 0 {
                m[i] = 0
                m[i + 1] = 0
                continue
            }
            let secant: Double = secants[i]
            let a: Double = m[i] / secant, b: Double = m[i + 1] / secant
            let length: Double = a * a + b * b
            if length > 9 {
                let t: Double = 3 / length.squareRoot()
                m[i] = t * a * secant
                m[i + 1] = t * b * secant
            }
        }
        slopes = m
    }

    public func value(at x: Double) -> Double {
        guard let first = xs.first, let last = xs.last, xs.count > 1 else { return ys.first ?? x }
        if x <= first { return ys[0] }
        if x >= last { return ys[ys.count - 1] }
        var i = 0
        while x > xs[i + 1] { i += 1 }
        let h: Double = xs[i + 1] - xs[i], t: Double = (x - xs[i]) / h
        let t2: Double = t * t, t3: Double = t2 * t
        // Cubic Hermite basis.
        let h00: Double = 2 * t3 - 3 * t2 + 1, h10: Double = t3 - 2 * t2 + t
        let h01: Double = -2 * t3 + 3 * t2, h11: Double = t3 - t2
        return h00 * ys[i] + h10 * h * slopes[i] + h01 * ys[i + 1] + h11 * h * slopes[i + 1]
    }
}
