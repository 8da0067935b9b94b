/// Why `workbench serve` could not start or answer.
public enum ServeError: Error, Sendable, CustomStringConvertible {
    /// The address could not be listened on (taken, or not an address of this machine).
    case cannotListen(host: String, port: Int, reason: String)
    /// The preset could not be read at start (later edits are reported on the page instead).
    case badPreset(String)
    /// The preset file could not be read back to write the page's changes into it.
    case unreadablePreset(String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason):
            return "Cannot listen on \(host):\(port): \(reason). Choose another --port (0 picks a free one)."
        case .badPreset(let message):
            return message
        case .unreadablePreset(let path):
            return "Cannot read \(path); is it still there?"
        }
    }
}
