#if canImport(Glibc)
import Glibc
#endif
import WorkbenchKit

/// A warm glow from one edge, screened over the image: a point kernel that knows where each
/// pixel is (`region.left + x`, `region.top + y`) and how big the image is.
struct LightLeak: SampleKernel {
    enum Edge: String { case left, right, top, bottom }

    let strength: Float
    let edge: Edge
    /// How far the glow reaches, as a fraction of the image's width (or height).
    let reach: Float

    var name: String { "filmlab.lightLeak" }
    var inputColourBands: Int { 3 }

    /// The leak's colour: orange, red strongest.
    static let colour: (Float, Float, Float) = (1.0, 0.55, 0.2)

    /// Glow 0…1 at a pixel: falls off with the distance from the edge (a Gaussian), and swells
    /// and fades along the edge so it does not look like a gradient tool.
    @inline(__always) func glow(x: Int, y: Int, width: Int, height: Int) -> Float {
        let u = (Float(x) + 0.5) / Float(width), v = (Float(y) + 0.5) / Float(height)
        let (across, along): (Float, Float)
        switch edge {
        case .left: (across, along) = (u, v)
        case .right: (across, along) = (1 - u, v)
        case .top: (across, along) = (v, u)
        case .bottom: (across, along) = (1 - v, u)
        }
        let falloff = across / reach
        let swell = 0.65 + 0.35 * (1 - abs(along - 0.4) * 1.6)
        return strength * max(swell, 0) * expf(-falloff * falloff)
    }

    func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
        let bands = image.bands, white = image.max
        let tint = [Self.colour.0, Self.colour.1, Self.colour.2]
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            for x in 0..<region.width {
                let g = glow(x: region.left + x, y: region.top + y, width: image.width, height: image.height)
                let i = x * bands
                for b in 0..<3 {
                    let v = input[i + b].floatValue / white
                    output[i + b] = S(clamping: (1 - (1 - v) * (1 - g * tint[b])) * white)
                }
                if bands == 4 { output[i + 3] = input[i + 3] }
            }
        }
    }
}
