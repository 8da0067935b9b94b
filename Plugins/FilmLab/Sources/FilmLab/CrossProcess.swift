import WorkbenchKit

/// Cross-processing: each channel through its own curve — red and green steeper around the
/// middle, blue lifted in the shadows and pressed down in the highlights — blended with the
/// original by `strength`. A point kernel; alpha is copied.
struct CrossProcess: SampleKernel {
    let strength: Float

    var name: String { "filmlab.crossProcess" }
    var inputColourBands: Int { 3 }

    /// The look at full strength for a value 0…1 of band 0 (red), 1 (green) or 2 (blue).
    @inline(__always) func curve(_ v: Float, band: Int) -> Float {
        switch band {
        case 0: return 0.5 + (v - 0.5) * 1.45
        case 1: return 0.5 + (v - 0.5) * 1.2 + 0.02
        default: return 0.14 + v * 0.7
        }
    }

    func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
        let bands = image.bands, white = image.max
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            for x in 0..<region.width {
                let i = x * bands
                for b in 0..<3 {
                    let v = input[i + b].floatValue / white
                    let looked = min(max(curve(v, band: b), 0), 1)
                    output[i + b] = S(clamping: (v + (looked - v) * strength) * white)
                }
                if bands == 4 { output[i + 3] = input[i + 3] }
            }
        }
    }
}
