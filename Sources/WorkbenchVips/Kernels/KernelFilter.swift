import CVips
import WorkbenchCore
import WorkbenchKernels

/// Which code computes a kernel filter's pixels.
public enum KernelEngine: String, CaseIterable, Sendable {
    /// The faster of the two, as measured by `bench/kernels.sh` on 8-bit photos.
    case auto
    /// The filter's Swift kernel, streaming inside libvips' pipeline.
    case swift
    /// libvips' own operations, chained to give the same pixels (within 1 per sample).
    case vips
}

/// Friendly filters with a Swift kernel and, where libvips has the operations for it, a libvips
/// equivalent: one declaration gives the op, its `engine` parameter and the engine choice.
enum KernelFilter {
    typealias VipsTransform = @Sendable (VipsImage, StageContext) throws -> VipsImage

    /// An op `name` whose Swift engine runs `swift(parameters)` and whose libvips engine (if
    /// any) runs `vips(parameters)`. `auto` runs `faster`. Images for which `unchanged` is true
    /// pass through (e.g. a grey image through `grayscale`).
    static func define(_ name: String, _ summary: String, _ parameters: [ParameterSpec], faster: KernelEngine = .swift,
                       check: (@Sendable (ParameterValues) -> String?)? = nil,
                       unchanged: (@Sendable (VipsImage) -> Bool)? = nil,
                       swift: @escaping @Sendable (ParameterValues) -> any Kernel,
                       vips: (@Sendable (ParameterValues) -> VipsTransform)? = nil) -> OpDefinition {
        Filter.define(name, summary, parameters + [engineParameter(hasVips: vips != nil, faster: faster)], check: check) { p in
            let chosen = KernelEngine(rawValue: p.word("engine")) ?? .auto
            let engine = chosen == .auto ? faster : chosen
            if engine == .vips, let vips {
                let transform = vips(p)
                return { image, _, context in
                    if unchanged?(image) == true { return image }
                    return try transform(image, context)
                }
            }
            let kernel = swift(p)
            return { image, _, context in
                if unchanged?(image) == true { return image }
                return try image.applying(kernel, cancellation: context.cancellation)
            }
        }
    }

    static func engineParameter(hasVips: Bool, faster: KernelEngine) -> ParameterSpec {
        guard hasVips else {
            return ParameterSpec("engine", .choice(["auto", "swift"]), default: .string("auto"),
                                 "\"swift\" (the only engine: libvips has no equivalent); \"auto\" picks it.")
        }
        return ParameterSpec("engine", .choice(KernelEngine.allCases.map(\.rawValue)), default: .string("auto"),
                             "\"swift\": a Swift kernel streaming inside libvips; \"vips\": libvips' own operations (the same pixels within 1); \"auto\": the faster on 8-bit photos, here \"\(faster.rawValue)\".")
    }

    /// Numbers on the 0…255 scale (levels' points, thresholds), for any image depth.
    static func level(_ name: String, default value: Double, _ summary: String) -> ParameterSpec {
        ParameterSpec(name, .double(0...255), default: .double(value), summary + " (0…255, whatever the image's depth)")
    }
}

extension VipsImage {
    /// The value of white: 255 for 8-bit and float sRGB, 65535 for 16-bit, 1 for scRGB.
    var whiteValue: Double {
        switch format {
        case VIPS_FORMAT_UCHAR: return 255
        case VIPS_FORMAT_USHORT: return 65535
        default: return [VIPS_INTERPRETATION_scRGB, VIPS_INTERPRETATION_XYZ].contains(interpretation) ? 1 : 255
        }
    }

    var isInteger: Bool { [VIPS_FORMAT_UCHAR, VIPS_FORMAT_USHORT].contains(format) }

    /// `body` on the colour bands only: alpha is set aside and joined back unchanged. The result
    /// is cast back to this image's format.
    func onColourBands(_ body: (VipsImage) throws -> VipsImage) throws -> VipsImage {
        guard hasAlpha else { return try body(self).rounded(to: format) }
        let colour = try extractBands(from: 0, count: bands - 1), alpha = try extractBands(from: bands - 1, count: 1)
        return try body(colour).rounded(to: format).joined(with: alpha)
    }

    /// This image in `target` format, rounded to the nearest value when that is an integer format.
    func rounded(to target: VipsBandFormat) throws -> VipsImage {
        guard format != target else { return self }
        let integerTarget = [VIPS_FORMAT_UCHAR, VIPS_FORMAT_USHORT, VIPS_FORMAT_CHAR, VIPS_FORMAT_SHORT, VIPS_FORMAT_UINT,
                             VIPS_FORMAT_INT].contains(target)
        let source = integerTarget && !isInteger ? try Filter.vips("round", self, ["round": .string("rint")]) : self
        return try source.cast(target)
    }

    /// A tone curve computed by libvips: `curve` maps sample values (0…white) to sample values.
    /// 8- and 16-bit images go through a table libvips computes with the curve (`identity`, then
    /// `maplut`, as libvips' own `gamma` does); float images through the curve directly.
    func toneMapped(_ curve: (VipsImage, Double) throws -> VipsImage) throws -> VipsImage {
        let white = whiteValue
        return try onColourBands { colour in
            guard colour.isInteger else { return try curve(colour, white) }
            let identity = try Filter.vips("identity", nil, ["ushort": .bool(colour.format == VIPS_FORMAT_USHORT)])
            let table = try curve(identity.cast(VIPS_FORMAT_FLOAT), white).rounded(to: colour.format)
            return try Filter.vips("maplut", colour, ["lut": .image(table)])
        }
    }

    /// `a · v + b` on every band, as float.
    func linear(_ a: Double, _ b: Double) throws -> VipsImage {
        try Filter.vips("linear", self, ["a": .doubles([a]), "b": .doubles([b])])
    }

    /// Each value kept within `low…high`, by libvips' arithmetic (8.14 has no clamp):
    /// max(v, low) = (v − low + |v − low|) / 2 + low, and likewise for the minimum.
    func clamped(_ low: Double, _ high: Double) throws -> VipsImage {
        let shifted = try linear(1, -low)
        let floor = try Filter.vips("add", shifted, ["right": .image(Filter.vips("abs", shifted))]).linear(0.5, 0)
        // Now 0 … ; min(x, span) = span − max(span − x, 0).
        let span = high - low
        let flipped = try floor.linear(-1, span)
        let capped = try Filter.vips("add", flipped, ["right": .image(Filter.vips("abs", flipped))]).linear(0.5, 0)
        return try capped.linear(-1, span + low)
    }
}
