/// Dispatch's quality-of-service classes, highest first.
public enum QoS: String, Sendable, CaseIterable, Comparable {
    case userInteractive, userInitiated, utility, background

    /// Larger is more urgent.
    public var rank: Int {
        switch self {
        case .userInteractive: return 3
        case .userInitiated: return 2
        case .utility: return 1
        case .background: return 0
        }
    }

    public static func < (a: QoS, b: QoS) -> Bool { a.rank < b.rank }
}

/// A named stage queue: how many of its nodes may run at once, and how urgent they are.
public struct QueueSpec: Sendable, Equatable {
    public enum Concurrency: Sendable, Equatable {
        case fixed(Int)
        /// As many as the machine has cores.
        case auto
    }

    public let name: String
    public let concurrency: Concurrency
    public let qos: QoS

    public init(name: String, concurrency: Concurrency, qos: QoS) {
        (self.name, self.concurrency, self.qos) = (name, concurrency, qos)
    }

    /// The queues every preset has unless it redefines them.
    public static let defaults: [QueueSpec] = [
        QueueSpec(name: "net", concurrency: .fixed(8), qos: .utility),
        QueueSpec(name: "cpu", concurrency: .auto, qos: .userInitiated),
        QueueSpec(name: "disk", concurrency: .fixed(2), qos: .utility),
    ]
}
