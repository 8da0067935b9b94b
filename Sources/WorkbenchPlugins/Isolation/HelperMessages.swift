import Foundation
import Glibc
import WorkbenchCore

/// What the host asks a plugin helper process; one message per datagram of a SEQPACKET socket.
enum HelperRequest: Codable {
    /// Make the filter's kernel for these values and say its shape; then let it go.
    case describe(filter: String, values: [String: WireValue])
    /// Make the filter's kernel and its per-thread state for this image; regions follow.
    case open(filter: String, values: [String: WireValue], image: WireImage)
    /// Process the region whose input is in shared memory; the output goes after it.
    case process(WireRegion)
    /// Stop and release the open kernel.
    case close
}

/// What the helper answers.
enum HelperReply: Codable {
    /// Sent once, unasked, after the plugin's library was loaded and checked.
    case ready
    case done
    case described(margin: Int, inputColourBands: Int, outputColourBands: Int)
    /// The kernel (or loading the plugin) failed with this message.
    case failed(String)
}

/// A parameter value on the wire (`ParameterValue`, which Core keeps free of Codable).
indirect enum WireValue: Codable, Equatable {
    case bool(Bool), int(Int), double(Double), string(String), list([WireValue])

    init(_ value: ParameterValue) {
        switch value {
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .list(let l): self = .list(l.map(WireValue.init))
        }
    }

    var value: ParameterValue {
        switch self {
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .list(let l): return .list(l.map(\.value))
        }
    }

    static func encode(_ values: ParameterValues, _ parameters: [ParameterSpec]) -> [String: WireValue] {
        var wire: [String: WireValue] = [:]
        for parameter in parameters { if let value = values[parameter.name] ?? parameter.defaultValue { wire[parameter.name] = WireValue(value) } }
        return wire
    }

    static func decode(_ wire: [String: WireValue]) -> ParameterValues { ParameterValues(wire.mapValues(\.value)) }
}
