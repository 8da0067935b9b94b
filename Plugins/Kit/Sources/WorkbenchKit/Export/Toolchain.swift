/// The Swift compiler a library was built with, major.minor: a plugin's library brings the Swift
/// runtime of its toolchain into the host's process, so host and plugin must agree on it.
public enum Toolchain {
    public static let current: String = {
        #if compiler(>=7.0)
        return "swift-7+"
        #elseif compiler(>=6.5)
        return "swift-6.5"
        #elseif compiler(>=6.4)
        return "swift-6.4"
        #elseif compiler(>=6.3)
        return "swift-6.3"
        #elseif compiler(>=6.2)
        return "swift-6.2"
        #elseif compiler(>=6.1)
        return "swift-6.1"
        #else
        return "swift-6.0"
        #endif
    }()
}
