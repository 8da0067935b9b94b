import CVips
import Foundation
import Synchronization

/// Reads libvips' own description of its operations: each one the first time it is asked for.
public enum VipsIntrospection {
    /// Every concrete operation of this libvips, by nickname, with every module loaded; empty if
    /// libvips cannot start. Listing costs loading all modules and describing ~300 operations
    /// (tens of milliseconds): a run asks for its operations one by one instead (`operation`).
    public static var operations: [String: VipsOperationInfo] {
        // libvips did not start: `VipsOps.moduleFailures` says why (`filters` and `schema` print it).
        guard (try? VipsRuntime.start()) != nil else { return [:] }
        VipsModules.loadAll()
        var found: [String: VipsOperationInfo] = [:]
        for type in concreteOperationTypes() {
            guard let nick = vips_nickname_find(type).map({ String(cString: $0) }), found[nick] == nil,
                  let info = operation(nick) else { continue }
            found[nick] = info
        }
        return found
    }

    /// Operations described so far, by nickname; nil for names libvips does not have.
    private static let described = Mutex<[String: VipsOperationInfo?]>([:])

    /// The operation named `nick` (bringing in the module that has it), or nil when this
    /// libvips has no such operation.
    public static func operation(_ nick: String) -> VipsOperationInfo? {
        if let known = described.withLock({ $0[nick] }) { return known }
        // libvips did not start: `VipsOps.moduleFailures` says why (`filters` and `schema` print it).
        guard (try? VipsRuntime.start()) != nil else { return nil }
        var type = vips_type_find("VipsOperation", nick)
        if type == 0, VipsModules.load(forOperation: nick) { type = vips_type_find("VipsOperation", nick) }
        // A name no module is known for may still come from one (a newer libvips).
        if type == 0, !VipsModules.allTried {
            VipsModules.loadAll()
            type = vips_type_find("VipsOperation", nick)
        }
        let info = type == 0 || cvips_type_is_abstract(type) != 0 ? nil : describe(nick, type: type)
        described.withLock { $0[nick] = .some(info) }
        return info
    }

    /// Whether libvips has operation `nick` now, without loading a module for it.
    static func isLoaded(_ nick: String) -> Bool {
        // libvips did not start: `VipsOps.moduleFailures` says why (`filters` and `schema` print it).
        guard (try? VipsRuntime.start()) != nil else { return false }
        return vips_type_find("VipsOperation", nick) != 0
    }

    private final class TypeList {
        var types: [GType] = []
    }

    private static func concreteOperationTypes() -> [GType] {
        let list = TypeList()
        let context = Unmanaged.passUnretained(list).toOpaque()
        // The walk's result is what the last callback returned (always nil here), not a status.
        _ = vips_type_map_all(vips_operation_get_type(), { type, context in
            guard let context, cvips_type_is_abstract(type) == 0 else { return nil }
            Unmanaged<TypeList>.fromOpaque(context).takeUnretainedValue().types.append(type)
            return nil
        }, context)
        return withExtendedLifetime(list) { list.types }
    }

    /// Builds (without running) an operation object to read its arguments.
    private static func describe(_ nick: String, type: GType) -> VipsOperationInfo? {
        guard let operation = vips_operation_new(nick) else {
            vips_error_clear()
            return nil
        }
        defer { cvips_operation_unref(operation) }
        let object = cvips_operation_object(operation)
        var names: UnsafeMutablePointer<UnsafePointer<CChar>?>?
        var flags: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        guard vips_object_get_args(object, &names, &flags, &count) == 0, let names, let flags else { return nil }
        var arguments: [VipsArgumentInfo] = []
        for i in 0..<Int(count) {
            guard let rawName = names[i] else { continue }
            let flag = VipsArgumentFlags(UInt32(bitPattern: flags[i]))
            let isInput = flag.rawValue & VIPS_ARGUMENT_INPUT.rawValue != 0
            let isOutput = flag.rawValue & VIPS_ARGUMENT_OUTPUT.rawValue != 0
            guard isInput || isOutput else { continue } // nickname, description: not arguments
            var pspec: UnsafeMutablePointer<GParamSpec>?
            var argumentClass: UnsafeMutablePointer<VipsArgumentClass>?
            var instance: UnsafeMutablePointer<VipsArgumentInstance>?
            guard vips_object_get_argument(object, rawName, &pspec, &argumentClass, &instance) == 0,
                  let pspec, let argumentClass else { continue }
            let property = String(cString: rawName)
            arguments.append(VipsArgumentInfo(
                name: property.replacingOccurrences(of: "-", with: "_"), property: property,
                summary: g_param_spec_get_blurb(pspec).map { String(cString: $0) } ?? "",
                // libvips builds without a deprecated argument it still flags required (reduce's
                // xshrink, kept for old callers of hshrink): so a preset need not give it.
                kind: kind(of: pspec),
                isRequired: flag.rawValue & VIPS_ARGUMENT_REQUIRED.rawValue != 0 && flag.rawValue & VIPS_ARGUMENT_DEPRECATED.rawValue == 0,
                isInput: isInput, isOutput: isOutput,
                isDeprecated: flag.rawValue & VIPS_ARGUMENT_DEPRECATED.rawValue != 0,
                priority: argumentClass.pointee.priority, type: cvips_pspec_value_type(pspec)))
        }
        arguments.sort { ($0.priority, $0.name) < ($1.priority, $1.name) }
        let operationFlags = vips_operation_get_flags(operation).rawValue
        return VipsOperationInfo(
            nickname: nick,
            summary: vips_object_get_description(object).map { String(cString: $0) } ?? "",
            isDeprecated: operationFlags & VIPS_OPERATION_DEPRECATED.rawValue != 0,
            isUntrusted: operationFlags & VIPS_OPERATION_UNTRUSTED.rawValue != 0,
            // thumbnail_image is not flagged, but it only shrinks, which streams.
            isSequential: operationFlags & VIPS_OPERATION_SEQUENTIAL.rawValue != 0 || nick == "thumbnail_image",
            arguments: arguments,
            isLoader: g_type_is_a(type, vips_foreign_load_get_type()) != 0,
            isSaver: g_type_is_a(type, vips_foreign_save_get_type()) != 0)
    }

    private static func kind(of pspec: UnsafeMutablePointer<GParamSpec>) -> VipsArgumentInfo.Kind {
        let type = cvips_pspec_value_type(pspec)
        switch type {
        case cvips_type_boolean():
            return .bool(default: cvips_pspec_boolean_default(pspec) != 0)
        case cvips_type_int():
            var min: Int32 = 0, max: Int32 = 0, def: Int32 = 0
            cvips_pspec_int(pspec, &min, &max, &def)
            return .int(min: Int(min), max: Int(max), default: Int(def))
        case cvips_type_uint64():
            var min: guint64 = 0, max: guint64 = 0, def: guint64 = 0
            cvips_pspec_uint64(pspec, &min, &max, &def)
            return .uint64(min: UInt64(min), max: UInt64(max), default: UInt64(def))
        case cvips_type_double():
            var min = 0.0, max = 0.0, def = 0.0
            cvips_pspec_double(pspec, &min, &max, &def)
            return .double(min: min, max: max, default: def)
        case cvips_type_string():
            return .string(default: cvips_pspec_string_default(pspec).map { String(cString: $0) })
        case vips_image_get_type(): return .image
        case vips_array_image_get_type(): return .images
        case vips_array_int_get_type(): return .ints
        case vips_array_double_get_type(): return .doubles
        case vips_blob_get_type(): return .blob
        case vips_interpolate_get_type(): return .interpolate
        case vips_source_get_type(), vips_target_get_type(): return .stream
        default:
            if cvips_type_is_enum(type) != 0 {
                let values = enumeration(type)
                return .enumeration(values, default: values.nick(of: Int(cvips_pspec_enum_default(pspec))))
            }
            if cvips_type_is_flags(type) != 0 {
                let values = flagValues(type)
                let bits = Int(cvips_pspec_flags_default(pspec))
                return .flags(values, default: zip(values.nicks, values.values).filter { $1 != 0 && $1 & bits == $1 }.map(\.0))
            }
            return .unsupported(String(cString: g_type_name(type)))
        }
    }

    private static func enumeration(_ type: GType) -> VipsEnumeration {
        guard let enumClass = cvips_enum_class(type) else { return VipsEnumeration(type: type, nicks: [], values: []) }
        var nicks: [String] = [], values: [Int] = []
        for i in 0..<Int(enumClass.pointee.n_values) {
            let value = enumClass.pointee.values[i]
            let nick = String(cString: value.value_nick)
            // libvips enums end with a "last" sentinel that is not a value.
            if nick == "last" { continue }
            nicks.append(nick)
            values.append(Int(value.value))
        }
        return VipsEnumeration(type: type, nicks: nicks, values: values)
    }

    private static func flagValues(_ type: GType) -> VipsEnumeration {
        guard let flagsClass = cvips_flags_class(type) else { return VipsEnumeration(type: type, nicks: [], values: []) }
        var nicks: [String] = [], values: [Int] = []
        for i in 0..<Int(flagsClass.pointee.n_values) {
            let value = flagsClass.pointee.values[i]
            nicks.append(String(cString: value.value_nick))
            values.append(Int(value.value))
        }
        return VipsEnumeration(type: type, nicks: nicks, values: values)
    }
}
