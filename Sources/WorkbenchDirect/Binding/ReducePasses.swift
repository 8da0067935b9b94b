import CResample

/// The passes of `CResample` (AVX2 where the processor has it, the same integers otherwise)
/// in Swift's terms; the windows they apply are made in Swift (`Resampler.Taps`, `ReduceAxis`).
enum ReducePasses {
    /// Each output row the weighted sum of the input rows its taps name; `stride` bytes a row.
    static func rows(_ input: UnsafePointer<UInt8>, stride: Int, into output: UnsafeMutablePointer<UInt8>, height: Int,
                     taps: Resampler.Taps) {
        wb_reduce_rows(input, Int32(stride), output, Int32(height), taps.inputs, taps.weights, Int32(taps.count))
    }

    /// Each output pixel of each row the weighted sum of the input pixels its taps name, band by band.
    static func columns(_ input: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int, into output: UnsafeMutablePointer<UInt8>,
                        width outWidth: Int, taps: Resampler.Taps) {
        wb_reduce_columns(input, Int32(width), Int32(height), Int32(bands), output, Int32(outWidth),
                          taps.first, taps.inputs, taps.weights, Int32(taps.count))
    }

    /// An image whose last band is alpha, premultiplied, box-shrunk and reduced in floats along
    /// `x` and `y`, unpremultiplied, into `output` (`x.output` × `y.output` pixels); false when
    /// out of memory.
    static func premultiplied(_ input: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int,
                              into output: UnsafeMutablePointer<UInt8>, x: ReduceAxis, y: ReduceAxis) -> Bool {
        wb_reduce_alpha(input, Int32(width), Int32(height), Int32(bands), Int32(x.box), Int32(y.box), output, Int32(x.output), Int32(y.output),
                        x.inputs, x.weights, Int32(x.count), y.inputs, y.weights, Int32(y.count)) != 0
    }

    /// Tests: the plain loops even where AVX2 is present (they write the same bytes).
    static func scalarOnly(_ on: Bool) { wb_resample_scalar_only(on ? 1 : 0) }
}
