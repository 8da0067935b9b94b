/// A 3×3 colour matrix acting on RGB: `out[r] = Σ m[r][c] · in[c]`.
public struct ColourMatrix: Sendable, Equatable {
    /// Row-major coefficients.
    public let rows: [[Double]]

    public init(rows: [[Double]]) {
        precondition(rows.count == 3 && rows.allSatisfy { $0.count == 3 }, "a colour matrix is 3×3") // safe: callers pass literals
        self.rows = rows
    }

    public static let identity = ColourMatrix(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    /// The classic sepia tone matrix (the one Core Image's CISepiaTone and most tools use at full strength).
    public static let classicSepia = ColourMatrix(rows: [
        [0.393, 0.769, 0.189],
        [0.349, 0.686, 0.168],
        [0.272, 0.534, 0.131],
    ])

    /// Sepia at `intensity` in 0…1: the identity blended with the classic matrix.
    public static func sepia(intensity: Double) -> ColourMatrix {
        let t = min(max(intensity, 0), 1)
        return identity.blended(with: classicSepia, by: t)
    }

    /// A tint at `amount` in 0…1: the image's luminance (Rec. 709 weights) coloured `colour`
    /// (0…255 per channel), blended with the identity.
    public static func tint(red: Double, green: Double, blue: Double, amount: Double) -> ColourMatrix {
        let luma = [0.2126, 0.7152, 0.0722]
        let tinted = ColourMatrix(rows: [red, green, blue].map { c in luma.map { $0 * c / 255 } })
        return identity.blended(with: tinted, by: min(max(amount, 0), 1))
    }

    /// `(1 − t) · self + t · other`.
    public func blended(with other: ColourMatrix, by t: Double) -> ColourMatrix {
        ColourMatrix(rows: (0..<3).map { r in (0..<3).map { c in (1 - t) * rows[r][c] + t * other.rows[r][c] } })
    }

    /// The coefficients row by row, as libvips' matrix images and most C APIs take them.
    public var flattened: [Double] { rows.flatMap { $0 } }

    /// The coefficients in fixed point (`fixedPointShift` fractional bits), row-major, for
    /// `ColourMatrixKernel`'s 8-bit path.
    /// Coefficients too large for 32 bits (a preset's values are range-checked long before, but a
    /// kernel must not trap on what a library caller hands it) saturate; NaN becomes 0.
    public var fixedPoint: [Int32] { flattened.map { Self.fixed($0) } }
    public static let fixedPointShift: Int32 = 14

    /// `value` in fixed point, saturated to Int32 (NaN → 0).
    static func fixed(_ value: Double) -> Int32 {
        let scaled = (value * Double(1 << fixedPointShift)).rounded()
        guard scaled == scaled else { return 0 }
        return Int32(min(max(scaled, Double(Int32.min)), Double(Int32.max)))
    }

    /// Applies the matrix to one 8-bit RGB pixel, rounding and clamping to 0…255.
    public func apply(r: UInt8, g: UInt8, b: UInt8) -> (UInt8, UInt8, UInt8) {
        func channel(_ row: [Double]) -> UInt8 {
            let v = row[0] * Double(r) + row[1] * Double(g) + row[2] * Double(b)
            // Written so that NaN lands on 0 rather than trapping in UInt8().
            return v > 0 ? (v < 255 ? UInt8(v.rounded()) : 255) : 0
        }
        return (channel(rows[0]), channel(rows[1]), channel(rows[2]))
    }
}
