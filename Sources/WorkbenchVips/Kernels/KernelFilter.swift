import WorkbenchCore
import WorkbenchKernels

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

    /// An op `name` with the parameters `Parameters` declares, whose Swift engine runs
    /// `swift(parameters)` and whose libvips engine (if any) runs `vips(parameters)`. `auto`
    /// runs `faster`. Images for which `unchanged` is true pass through (e.g. a grey image
    /// through `grayscale`).
    static func define<Parameters: OpParameters>(_ name: String, _ summary: String, _ parameters: Parameters.Type, faster: KernelEngine = .swift,
                                                 fasterFor: (@Sendable (Parameters) -> KernelEngine)? = nil,
                                                 check: (@Sendable (Parameters) -> String?)? = nil,
                                                 unchanged: (@Sendable (VipsImage) -> Bool)? = nil,
                                                 swift: @escaping @Sendable (Parameters) -> any Kernel,
                                                 vips: (@Sendable (Parameters) -> VipsTransform)? = nil) -> OpDefinition {
        let engineSpec = EngineChoice.declaration(hasVips: vips != nil, faster: fasterFor == nil ? faster : nil)
        return FilterStage.define(name, summary, Parameters.specs + [engineSpec], check: check.map { check in { @Sendable values in check(Parameters(values)) } }) { values in
            let p = Parameters(values)
            let chosen = EngineChoice(values).engine
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

    /// Every kernel filter's `engine` parameter, declared and read through one binding; its
    /// choices and summary depend on whether the op has a libvips engine and which is faster.
    struct EngineChoice: OpParameters {
        var engine = KernelEngine.auto

        static let bindings: [ParameterBinding<Self>] = [binding(hasVips: true, faster: nil)]

        private static func binding(hasVips: Bool, faster: KernelEngine?) -> ParameterBinding<Self> {
            guard hasVips else {
                return .choice("engine", \.engine, among: [.auto, .swift], "\"swift\" (the only engine: libvips has no equivalent); \"auto\" picks it.")
            }
            return .choice("engine", \.engine,
                           "\"swift\": a Swift kernel streaming inside libvips; \"vips\": libvips' own operations (the same pixels within 1); \"auto\": the faster on 8-bit photos"
                               + (faster.map { ", here \"\($0.rawValue)\"." } ?? ", which depends on the parameters here."))
        }

        /// `faster`: the engine `auto` picks, or nil when that depends on the parameters.
        static func declaration(hasVips: Bool, faster: KernelEngine?) -> ParameterSpec {
            binding(hasVips: hasVips, faster: faster).spec
        }
    }
}

extension ParameterBinding {
    /// A number on the 0…255 scale (levels' points, thresholds), for any image depth.
    static func level(_ name: String, _ field: WritableKeyPath<Parameters, Double> & Sendable, _ summary: String) -> Self {
        .double(name, field, 0...255, summary + " (0…255, whatever the image's depth)")
    }
}
