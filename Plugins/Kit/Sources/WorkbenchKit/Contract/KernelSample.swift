/// A sample type kernels are written for once and run on in every format: `UInt8`, `UInt16`
/// and `Float`. Generic loops over it are specialised by the compiler for each.
public protocol KernelSample: Sendable {
    static var format: SampleFormat { get }
    var floatValue: Float { get }
    /// `value` rounded to the nearest sample and kept in the format's range (floats are kept as they are).
    init(clamping value: Float)
}

extension UInt8: KernelSample {
    public static var format: SampleFormat { .uint8 }
    @inline(__always) public var floatValue: Float { Float(self) }
    @inline(__always) public init(clamping value: Float) {
        // NaN fails both comparisons and becomes 0.
        self = value > 0 ? (value < 255 ? UInt8(value + 0.5) : 255) : 0
    }
}

extension UInt16: KernelSample {
    public static var format: SampleFormat { .uint16 }
    @inline(__always) public var floatValue: Float { Float(self) }
    @inline(__always) public init(clamping value: Float) {
        self = value > 0 ? (value < 65535 ? UInt16(value + 0.5) : 65535) : 0
    }
}

extension Float: KernelSample {
    public static var format: SampleFormat { .float }
    @inline(__always) public var floatValue: Float { self }
    @inline(__always) public init(clamping value: Float) { self = value }
}
