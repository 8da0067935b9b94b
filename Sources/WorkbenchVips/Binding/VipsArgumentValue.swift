import CVips
import CVipsBridge
import Foundation
import WorkbenchCore

/// A value for one libvips argument, in the form libvips takes it.
enum VipsArgumentValue: @unchecked Sendable {
    // Safe: the images are immutable `VipsImage`s (see there); the rest are values.
    case bool(Bool)
    case int(Int)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case enumeration(Int)
    case flags(Int)
    case image(VipsImage)
    case images([VipsImage])
    case ints([Int])
    case doubles([Double])
    case blob(Data)
    case interpolate(String)
}
