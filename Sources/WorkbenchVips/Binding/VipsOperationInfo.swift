import CVips

/// What libvips declares about one argument of an operation.
public struct VipsArgumentInfo: Sendable {
    /// The argument's type, with its range, choices and default where libvips declares them.
    public enum Kind: Sendable {
        case bool(default: Bool)
        case int(min: Int, max: Int, default: Int)
        case uint64(min: UInt64, max: UInt64, default: UInt64)
        case double(min: Double, max: Double, default: Double)
        case string(default: String?)
        /// One value of a libvips enum, by nickname.
        case enumeration(VipsEnumeration, default: String?)
        /// A set of libvips flags, by nickname.
        case flags(VipsEnumeration, default: [String])
        case image
        case images
        case ints
        case doubles
        case blob
        case interpolate
        /// A `VipsSource` or `VipsTarget`: streams the generic call does not offer.
        case stream
        case unsupported(String)
    }

    /// libvips' name with `_` for `-` (as pyvips and the C API spell it), e.g. `compositing_space`.
    public let name: String
    /// The GObject property name as libvips declares it, e.g. `compositing-space`.
    let property: String
    public let summary: String
    public let kind: Kind
    /// libvips must have it to build (a deprecated argument it still flags required is not).
    public let isRequired: Bool
    public let isInput: Bool
    public let isOutput: Bool
    public let isDeprecated: Bool
    let priority: Int32
    /// The GType of the argument's value.
    let type: GType
}

/// The values of a libvips enum or flags type.
public struct VipsEnumeration: Sendable {
    let type: GType
    public let nicks: [String]
    let values: [Int]

    func value(of nick: String) -> Int? { nicks.firstIndex(of: nick).map { values[$0] } }
    func nick(of value: Int) -> String? { values.firstIndex(of: value).map { nicks[$0] } }
}

/// What libvips declares about one operation: its nickname, summary, flags and arguments.
public struct VipsOperationInfo: Sendable {
    public let nickname: String
    public let summary: String
    public let isDeprecated: Bool
    /// libvips marks loaders and savers that are less tested against hostile input as untrusted.
    public let isUntrusted: Bool
    /// libvips can run it on an input read once, top to bottom.
    public let isSequential: Bool
    /// Every input and output argument, in libvips' order (by priority).
    public let arguments: [VipsArgumentInfo]

    public var inputs: [VipsArgumentInfo] { arguments.filter(\.isInput) }
    public var outputs: [VipsArgumentInfo] { arguments.filter(\.isOutput) }

    /// The image input a node's `from` feeds: the first required input image.
    var mainInput: VipsArgumentInfo? {
        arguments.first { $0.isInput && $0.isRequired && $0.kind.isImage }
    }

    /// The blob input a node's `from` feeds when there is no image input (the `*load_buffer` loaders).
    var blobInput: VipsArgumentInfo? {
        mainInput == nil ? arguments.first { $0.isInput && $0.isRequired && $0.kind.isBlob } : nil
    }

    /// Reads an image from a file, buffer or stream (a `VipsForeignLoad`).
    public let isLoader: Bool
    /// Writes an image to a file, buffer, stream or descriptor (a `VipsForeignSave`).
    public let isSaver: Bool

}

extension VipsArgumentInfo.Kind {
    var isImage: Bool { if case .image = self { return true } else { return false } }
    var isBlob: Bool { if case .blob = self { return true } else { return false } }
    var isStream: Bool { if case .stream = self { return true } else { return false } }
    var isUnsupported: Bool { if case .unsupported = self { return true } else { return false } }
}
