import Foundation
import Synchronization
import WorkbenchCore

/// Every libvips operation as an op named `vips.<nickname>`, declared from libvips' introspection.
public enum VipsOperationOps {
    /// The ops for every operation presets can use, by name, with every module loaded; built
    /// once per process, for listing.
    public static let all: [OpDefinition] = VipsIntrospection.operations.values
        .filter { $0.policy.reason == nil }
        .sorted { $0.nickname < $1.nickname }
        .map(definition)

    /// Operations libvips has that presets cannot use, with the reason.
    public static let unavailable: [(name: String, reason: String)] = VipsIntrospection.operations.values.compactMap { info in
        info.policy.reason.map { ("vips." + info.nickname, $0) }
    }.sorted { $0.name < $1.name }

    /// Ops built so far by `definition(named:)`; nil for names presets cannot use.
    private static let built = Mutex<[String: OpDefinition?]>([:])

    /// The op `vips.<nickname>`, described from libvips when first asked for; nil when libvips
    /// has no such operation or presets may not use it (`unavailable` says why).
    static func definition(named name: String) -> OpDefinition? {
        if let known = built.withLock({ $0[name] }) { return known }
        let nick = String(name.dropFirst("vips.".count))
        let made = VipsIntrospection.operation(nick).flatMap { $0.policy.reason == nil ? definition($0) : nil }
        built.withLock { $0[name] = .some(made) }
        return made
    }

    /// Interpolators libvips ships (`vips_interpolate_new` nicknames).
    static let interpolators = ["nearest", "bilinear", "bicubic", "lbb", "nohalo", "vsqbs"]

    static func definition(_ info: VipsOperationInfo) -> OpDefinition {
        let main = info.mainInput ?? info.blobInput
        let confined = info.policy.confinedArguments
        var parameters: [ParameterSpec] = []
        for argument in info.arguments where argument.isInput && argument.name != main?.name {
            let file = confined.contains(argument.name) ? ParameterType.presetFile(builtins: VipsOperationPolicy.builtins(for: argument.name)) : nil
            if let parameter = parameter(for: argument, as: file) { parameters.append(parameter) }
        }
        let output: PayloadKind = info.arguments.contains { $0.isOutput && $0.isRequired && $0.kind.isImage } ? .image : .bytes
        let input: PayloadKind? = info.mainInput != nil ? .image : info.blobInput != nil ? .bytes : nil
        let firstRequired = parameters.first { $0.isRequired }?.name
        let spec = OpSpec(
            name: "vips." + info.nickname, summary: summary(info), input: input, output: output,
            defaultQueue: "cpu", execution: .cpu, parameters: parameters,
            // An operation without an input of its own makes one from its parameters (a file,
            // a size, a text), so a run-scope node needs no item.
            sourceParameter: input == nil ? firstRequired : nil, deprecated: info.isDeprecated,
            readsSequentially: info.isSequential)
        return OpDefinition(spec) { values in VipsOperationStage(info: info, values: values) }
    }

    private static func summary(_ info: VipsOperationInfo) -> String {
        var text = info.summary.prefix(1).uppercased() + info.summary.dropFirst()
        if !text.hasSuffix(".") { text += "." }
        if info.isUntrusted { text += " Untrusted: blocked unless untrusted operations are allowed." }
        return text
    }

    /// The preset parameter for a libvips input argument.
    static func parameter(for argument: VipsArgumentInfo, as fileType: ParameterType? = nil) -> ParameterSpec? {
        var type: ParameterType
        var defaultValue: ParameterValue?
        switch argument.kind {
        case .bool(let d):
            type = .bool
            defaultValue = .bool(d)
        case .int(let min, let max, let d):
            type = .int(min...max)
            defaultValue = .int(d)
        case .uint64(let min, let max, let d):
            let low = Int(clamping: min), high = Int(clamping: max)
            type = .int(low...high)
            defaultValue = .int(Int(clamping: d))
        case .double(let min, let max, let d):
            type = .double(min...max)
            defaultValue = .double(d)
        case .string(let d):
            type = .string
            defaultValue = d.flatMap { $0.isEmpty ? nil : .string($0) }
        case .enumeration(let values, let d):
            type = .choice(values.nicks)
            defaultValue = d.map { .string($0) }
        case .flags(let values, let d):
            type = .flags(values.nicks)
            defaultValue = d.isEmpty ? nil : .list(d.map { .string($0) })
        case .image: type = .imageOrMatrix
        case .images: type = .references(.image)
        case .ints: type = .integers
        // libvips' colour arguments are its `ink` (draw operations) and `background` (embed,
        // rotate, flatten, …): declared as colours, which the live page shows as such.
        case .doubles: type = ["ink", "background"].contains(argument.name) ? .colour : .numbers
        case .blob: type = .reference(.bytes)
        case .interpolate: type = .choice(interpolators)
        case .stream, .unsupported: return nil
        }
        if let fileType {
            type = fileType
            var summary = argument.summary.prefix(1).uppercased() + argument.summary.dropFirst()
            if summary.hasSuffix(".") { summary.removeLast() }
            return ParameterSpec(argument.name, type, required: argument.isRequired, passesDefault: false,
                                 aliases: argument.property != argument.name ? [argument.property] : [],
                                 deprecated: argument.isDeprecated, summary + ", inside the preset's folder.")
        }
        // libvips applies its own defaults to what a preset omits (some computed from the image,
        // e.g. arrayjoin's spacing), so the declared one is shown, not sent.
        return ParameterSpec(argument.name, type, required: argument.isRequired,
                             default: argument.isRequired ? nil : defaultValue, passesDefault: false,
                             aliases: argument.property != argument.name ? [argument.property] : [],
                             deprecated: argument.isDeprecated,
                             argument.summary.prefix(1).uppercased() + argument.summary.dropFirst() + ".")
    }
}
