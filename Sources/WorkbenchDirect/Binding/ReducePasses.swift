import CResample

/// The passes of `CResample` (AVX2 where the processor has it, the same integers otherwise)
/// in Swift's terms; the windows they apply are made in Swift (`Resampler.Taps`, `ReduceAxis`).
enum ReducePasses {
    /// A fixed-point window per output sample: `count` inputs (held at the edges) and their
    /// weights in 1/4096ths, and the first input before the edges were held.
    struct Window: Sendable {
        /// Per output sample: the first input it reads (before the edges, possibly negative).
        var first: [Int32] = []
        /// Per output sample, `count` inputs it reads, held at the edges: made once with the
        /// weights, so no pass clamps per tap.
        var inputs: [Int32] = []
        /// Per output sample, `count` weights (at most 4096 in size: 16 bits hold them).
        var weights: [Int16] = []
        var count = 0
    }

    /// A float window per output sample, after a box shrink by `box`: `output` samples.
    struct FloatWindow {
        let box: Int
        let output: Int
        let inputs: [Int32]
        let weights: [Float]
        let count: Int
    }

    /// Each output row the weighted sum of the input rows its taps name; `stride` bytes a row.
    static func rows(_ input: UnsafePointer<UInt8>, stride: Int, into output: UnsafeMutablePointer<UInt8>, height: Int,
                     taps: Window) {
        wb_reduce_rows(input, Int32(stride), output, Int32(height), taps.inputs, taps.weights, Int32(taps.count))
    }

    /// Each output pixel of each row the weighted sum of the input pixels its taps name, band by band.
    static func columns(_ input: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int, into output: UnsafeMutablePointer<UInt8>,
                        width outWidth: Int, taps: Window) {
        wb_reduce_columns(input, Int32(width), Int32(height), Int32(bands), output, Int32(outWidth),
                          taps.first, taps.inputs, taps.weights, Int32(taps.count))
    }

    /// An image whose last band is alpha, premultiplied, box-shrunk and reduced in floats along
    /// `x` and `y`, unpremultiplied, into `output` (`x.output` × `y.output` pixels); false when
    /// out of memory.
    static func premultiplied(_ input: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int,
                              into output: UnsafeMutablePointer<UInt8>, x: FloatWindow, y: FloatWindow) -> Bool {
        wb_reduce_alpha(input, Int32(width), Int32(height), Int32(bands), Int32(x.box), Int32(y.box), output, Int32(x.output), Int32(y.output),
                        x.inputs, x.weights, Int32(x.count), y.inputs, y.weights, Int32(y.count)) != 0
    }

    /// Tests: the plain loops even where AVX2 is present (they write the same bytes).
    static func scalarOnly(_ on: Bool) { wb_resample_scalar_only(on ? 1 : 0) }
}
