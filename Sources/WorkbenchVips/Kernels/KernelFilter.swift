import WorkbenchCore
import WorkbenchKernels

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum KernelFilterParameter: String, ParameterName {
    case engine
}

/// Which code computes a kernel filter's pixels.
public enum KernelEngine: String, CaseIterable, Sendable {
    /// The faster of the two, as measured by `bench/kernels.sh` on 8-bit photos (each filter
    /// declares which that is: `faster`).
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
                       fasterFor: (@Sendable (ParameterValues) -> KernelEngine)? = nil,
                       check: (@Sendable (ParameterValues) -> String?)? = nil,
                       unchanged: (@Sendable (VipsImage) -> Bool)? = nil,
                       swift: @escaping @Sendable (ParameterValues) -> any Kernel,
                       vips: (@Sendable (ParameterValues) -> VipsTransform)? = nil) -> OpDefinition {
        FilterStage.define(name, summary, parameters + [engineParameter(hasVips: vips != nil, faster: fasterFor == nil ? faster : nil)],
                      check: check) { p in
            let chosen = KernelEngine(rawValue: p.word(KernelFilterParameter.engine)) ?? .auto
            let engine = chosen == .auto ? fasterFor?(p) ?? faster : chosen
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

    /// `faster`: the engine `auto` picks, or nil when that depends on the parameters.
    static func engineParameter(hasVips: Bool, faster: KernelEngine?) -> ParameterSpec {
        guard hasVips else {
            return ParameterSpec(KernelFilterParameter.engine, .choice(["auto", "swift"]), default: .string("auto"),
                                 "\"swift\" (the only engine: libvips has no equivalent); \"auto\" picks it.")
        }
        return ParameterSpec(KernelFilterParameter.engine, .choice(KernelEngine.allCases.map(\.rawValue)), default: .string("auto"),
                             "\"swift\": a Swift kernel streaming inside libvips; \"vips\": libvips' own operations (the same pixels within 1); \"auto\": the faster on 8-bit photos"
                                + (faster.map { ", here \"\($0.rawValue)\"." } ?? ", which depends on the parameters here."))
    }

    /// Numbers on the 0…255 scale (levels' points, thresholds), for any image depth.
    static func level(_ name: String, default value: Double, _ summary: String) -> ParameterSpec {
        ParameterSpec(name, .double(0...255), default: .double(value), summary + " (0…255, whatever the image's depth)")
    }
}
