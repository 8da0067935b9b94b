import Foundation
import WorkbenchCore

/// A node running one libvips operation: `from` feeds its image (or blob) input, `"@id"`
/// references feed further image arguments, and the other parameters are passed by name.
struct VipsOperationStage: Stage {
    let info: VipsOperationInfo
    /// Arguments known at load: every parameter the preset gave that is not a reference.
    private let fixed: [(VipsArgumentInfo, VipsArgumentValue)]
    /// Matrices given inline for image arguments, by argument.
    private let matrices: [(VipsArgumentInfo, [[Double]])]
    /// Arguments fed from other nodes' outputs.
    private let referenced: [VipsArgumentInfo]

    init(info: VipsOperationInfo, values: ParameterValues) {
        self.info = info
        var fixed: [(VipsArgumentInfo, VipsArgumentValue)] = []
        var matrices: [(VipsArgumentInfo, [[Double]])] = []
        var referenced: [VipsArgumentInfo] = []
        let main = info.mainInput ?? info.blobInput
        for argument in info.arguments where argument.isInput && argument.name != main?.name {
            // Values the preset omitted are left to libvips (see `VipsOperationOps.parameter`).
            guard let value = values[argument.name] else { continue }
            switch (argument.kind, value) {
            case (.image, .list(let rows)): matrices.append((argument, rows.map(Self.numbers)))
            case (.image, _), (.images, _), (.blob, _): referenced.append(argument)
            default:
                if let converted = Self.convert(value, for: argument) { fixed.append((argument, converted)) }
            }
        }
        self.fixed = fixed
        self.matrices = matrices
        self.referenced = referenced
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        var arguments = fixed
        if let main = info.mainInput {
            arguments.append((main, .image(try inputs.image(context))))
        } else if let blob = info.blobInput {
            guard case .bytes(let bytes)? = inputs.first else {
                throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
            }
            arguments.append((blob, .blob(bytes.data)))
        }
        for (argument, rows) in matrices { arguments.append((argument, .image(try VipsOperationCall.matrix(rows)))) }
        for argument in referenced {
            let payloads = inputs.references(argument.name)
            switch argument.kind {
            case .images:
                // libvips fails an empty list without a word.
                if payloads.isEmpty { throw WorkbenchError.emptyFanIn(node: context.nodeID, parameter: argument.name) }
                arguments.append((argument, .images(try payloads.map { try Self.image($0, argument, context) })))
            case .blob:
                guard case .bytes(let bytes)? = payloads.first else {
                    throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes for \"\(argument.name)\"")
                }
                arguments.append((argument, .blob(bytes.data)))
            default:
                guard let payload = payloads.first else {
                    throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image for \"\(argument.name)\"")
                }
                arguments.append((argument, .image(try Self.image(payload, argument, context))))
            }
        }
        // Files a preset names stay inside its folder (symbolic links followed); built-in
        // profile names pass as they are.
        let confined = info.policy.confinedArguments
        for index in arguments.indices where confined.contains(arguments[index].0.name) {
            guard case .string(let name) = arguments[index].1 else { continue }
            if VipsOperationPolicy.builtins(for: arguments[index].0.name).contains(name) { continue }
            arguments[index].1 = .string(try PresetFolder.resolve(name, in: context.baseDirectory))
        }
        let outputs = try VipsOperationCall.run(info, arguments, cancellation: context.cancellation)
        return try payload(outputs, context)
    }

    private func payload(_ outputs: VipsCallOutputs, _ context: StageContext) throws -> Payload {
        if let image = info.arguments.first(where: { $0.isOutput && $0.isRequired && $0.kind.isImage }).flatMap({ outputs.images[$0.name] }) {
            return .image(image)
        }
        if let blob = outputs.blobs.values.first {
            return .bytes(Bytes(blob, origin: context.item.source))
        }
        // Measurements (avg, max, find_trim, …) become a JSON object a `write` can keep.
        var object: [String: Any] = [:]
        for (name, value) in outputs.values { object[name] = value }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return .bytes(Bytes(data, origin: context.item.source))
    }

    private static func image(_ payload: Payload, _ argument: VipsArgumentInfo, _ context: StageContext) throws -> VipsImage {
        guard let image = try StageImage(payload)?.libvipsImage(context) else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image for \"\(argument.name)\"")
        }
        return image
    }

    private static func numbers(_ value: ParameterValue) -> [Double] {
        guard case .list(let cells) = value else { return [] }
        return cells.compactMap(\.number)
    }

    /// A validated preset value as the libvips argument takes it.
    static func convert(_ value: ParameterValue, for argument: VipsArgumentInfo) -> VipsArgumentValue? {
        switch (argument.kind, value) {
        case (.bool, .bool(let b)): return .bool(b)
        case (.int, .int(let i)): return .int(i)
        case (.uint64, .int(let i)): return .uint64(UInt64(max(0, i)))
        case (.double, .double(let d)): return .double(d)
        case (.double, .int(let i)): return .double(Double(i))
        case (.string, .string(let s)): return .string(s)
        case (.interpolate, .string(let s)): return .interpolate(s)
        case (.enumeration(let values, _), .string(let nick)): return values.value(of: nick).map { .enumeration($0) }
        case (.flags(let values, _), .list(let nicks)):
            var bits = 0
            for case .string(let nick) in nicks { bits |= values.value(of: nick) ?? 0 }
            return .flags(bits)
        case (.ints, .list(let list)):
            return .ints(list.compactMap { if case .int(let i) = $0 { return i } else { return nil } })
        case (.doubles, .list(let list)): return .doubles(numbers(.list(list)))
        default: return nil
        }
    }
}
