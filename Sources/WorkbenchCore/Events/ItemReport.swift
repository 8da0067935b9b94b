/// What stages said of an item while it ran, for its report.
public struct ItemNotes: Sendable {
    /// "node: text" for damage a decoder worked around (`StageContext.warn`).
    public var warnings: [String] = []
    /// "node: how" for each decode of the item's pixels (`StageContext.recordDecode`).
    public var decodes: [String] = []
    /// "node: text" for what a node decided that the report says once a run (`StageContext.note`).
    public var notes: [String] = []
    /// What nodes measured of the item (`StageContext.recordMeasurement`).
    public var measurements: [NodeMeasurement] = []
}

/// Numbers a node measured for an item: the quality an encode chose for a target and the score
/// it reached, or `measure`'s score of two images. Reported per item (`--report`, `--verbose`).
public struct NodeMeasurement: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// "Q", "ssimulacra2", "bytes", "encodes", …
        public let name: String
        public let value: Double

        public init(_ name: String, _ value: Double) {
            self.name = name
            self.value = value
        }
    }

    public let node: String
    public let values: [Value]
    /// The same in words, as `--verbose` prints it.
    public let words: String

    public init(node: String, values: [Value], words: String) {
        self.node = node
        self.values = values
        self.words = words
    }

    /// A value by name.
    public subscript(name: String) -> Double? { values.first { $0.name == name }?.value }
}

/// How one item ended.
public struct ItemReport: Sendable {
    public enum Status: String, Sendable {
        /// `upToDate`: every file was already what this run would make; nothing was written.
        case succeeded, failed, cancelled, upToDate
    }

    public let item: Item
    public let status: Status
    /// Files written for the item.
    public let files: [OutputFile]
    /// Files left as they were, their recipes unchanged (as the manifest recorded them).
    public let upToDate: [OutputFile]
    /// Files not made on purpose, each with its reason (`OutputFile.notMade`): copies that came
    /// out the same as a smaller copy. Neither in `files` nor in `upToDate`.
    public let notMade: [OutputFile]
    public let bytesWritten: Int
    /// The node that failed and why, when `status` is `failed`.
    public let failure: (node: String, message: String)?
    /// Seconds from the item's first node starting to its last node ending.
    public let duration: Double
    /// What went wrong without failing it (a decoder working around damage), as "node: text".
    public let warnings: [String]
    /// What the input was when it was read, for incremental runs.
    public let identity: InputIdentity?
    /// Each decode of the item's pixels, as "node: how" (`StageContext.recordDecode`).
    public let decodes: [String]
    /// What nodes decided on the item's behalf that the run says once (a transparent image
    /// flattened onto a background for JPEG), as "node: text" (`StageContext.note`).
    public let notes: [String]
    /// What its nodes measured (an encode's quality search, `measure`), in the order they did.
    public let measurements: [NodeMeasurement]

    public init(item: Item, status: Status, files: [OutputFile], upToDate: [OutputFile] = [], bytesWritten: Int,
                failure: (node: String, message: String)?, duration: Double, warnings: [String] = [],
                identity: InputIdentity? = nil, decodes: [String] = [], notes: [String] = [], notMade: [OutputFile] = [],
                measurements: [NodeMeasurement] = []) {
        self.notMade = notMade
        self.measurements = measurements
        self.decodes = decodes
        self.notes = notes
        self.item = item
        self.status = status
        self.files = files
        self.upToDate = upToDate
        self.bytesWritten = bytesWritten
        self.failure = failure
        self.duration = duration
        self.warnings = warnings
        self.identity = identity
    }

    /// Paths of the files written, relative to the output root.
    public var outputs: [String] { files.map(\.path) }

    /// The same report with more warnings (found after the item ended, e.g. by the manifest).
    func adding(warnings more: [String]) -> ItemReport {
        ItemReport(item: item, status: status, files: files, upToDate: upToDate, bytesWritten: bytesWritten,
                   failure: failure, duration: duration, warnings: warnings + more, identity: identity, decodes: decodes, notes: notes,
                   notMade: notMade, measurements: measurements)
    }
}

/// How one run-scope node ended, for nodes whose outcome matters on its own: those that wrote
/// a file (a contact sheet) and those that failed or were skipped.
public struct RunNodeReport: Sendable {
    public let node: String
    public let state: NodeState
    /// The file it wrote, relative to the output root.
    public let output: String?
    public let bytesWritten: Int
    /// The node that failed first and why (the node itself, or one upstream of it).
    public let failure: (node: String, message: String)?

    public init(node: String, state: NodeState, output: String? = nil, bytesWritten: Int = 0,
                failure: (node: String, message: String)? = nil) {
        self.node = node
        self.state = state
        self.output = output
        self.bytesWritten = bytesWritten
        self.failure = failure
    }
}
