/// An affine map of the three colour bands, `out = M · in + offset` (alpha copied): the shape
/// of `channelMixer`, `sepia`, `tint` and `duotone`. 8-bit images use fixed point (exact to
/// within 1 of the floating-point result, and several times faster); others floating point.
public struct ColourMatrixKernel: Kernel {
    public let name: String
    public let matrix: ColourMatrix
    /// Added after the matrix, per band, on 0…255.
    public let offset: SIMD3<Double>

    public init(name: String, matrix: ColourMatrix, offset: SIMD3<Double> = .zero) {
        self.name = name
        self.matrix = matrix
        self.offset = offset
    }

    public var inputColourBands: Int { 3 }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8: fixedPoint(region, image)
        case .uint16, .float: try PixelKernel(map).process(region, image: image, scratch: nil)
        }
    }

    private var map: AffineMap { AffineMap(name: name, rows: matrix.rows.map { SIMD3($0.map(Float.init)) }, offset: SIMD3<Float>(offset / 255)) }

    private func fixedPoint(_ region: KernelRegion, _ image: KernelImage) {
        let shift = ColourMatrix.fixedPointShift
        let m = matrix.fixedPoint
        let o = [offset.x, offset.y, offset.z].map { ColourMatrix.fixed($0) &+ (1 << (shift - 1)) }
        let bands = image.bands
        @inline(__always) func clamp(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(v >> shift, 0), 255)) }
        for y in 0..<region.height {
            let input = region.inputRow(y, as: UInt8.self), output = region.outputRow(y, as: UInt8.self)
            var i = 0
            for _ in 0..<region.width {
                let r = Int32(input[i]), g = Int32(input[i + 1]), b = Int32(input[i + 2])
                output[i] = clamp(m[0] &* r &+ m[1] &* g &+ m[2] &* b &+ o[0])
                output[i + 1] = clamp(m[3] &* r &+ m[4] &* g &+ m[5] &* b &+ o[1])
                output[i + 2] = clamp(m[6] &* r &+ m[7] &* g &+ m[8] &* b &+ o[2])
                if bands == 4 { output[i + 3] = input[i + 3] }
                i += bands
            }
        }
    }
}

/// `M · colour + offset` on 0…1.
struct AffineMap: PixelMap {
    let name: String
    let rows: [SIMD3<Float>]
    let offset: SIMD3<Float>

    var inputColourBands: Int { 3 }

    func map(_ colour: SIMD4<Float>, x: Int, y: Int, size: (width: Int, height: Int)) -> SIMD4<Float> {
        let c = SIMD3(colour[0], colour[1], colour[2])
        return SIMD4((rows[0] * c).sum() + offset[0], (rows[1] * c).sum() + offset[1], (rows[2] * c).sum() + offset[2], 0)
    }
}
