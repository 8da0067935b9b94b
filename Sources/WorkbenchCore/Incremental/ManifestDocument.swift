import Foundation

/// The manifest in an output root (`workbench-manifest.json`): for every input a run saw, what
/// it was and the files made from it, with their recipes. Reruns read it to skip what is up to
/// date; people read it to find an input's outputs (e.g. to build `srcset`).
///
/// Several presets may write into one output root: each item is recorded per preset, so
/// their records live side by side.
///
/// Written with sorted keys, items sorted by input (then preset) and outputs by path, and
/// nothing that changes from run to run (no times, no machine names): the same work gives the
/// same bytes, whether one process did it or several shards whose parts were merged.
public struct ManifestDocument: Sendable, Codable, Equatable {
    /// 2 since items name their preset; version 1 files are read too (items of no preset).
    public static let version = 2
    public var manifestVersion: Int
    public var items: [ManifestItem]

    public init(items: [ManifestItem]) {
        self.manifestVersion = Self.version
        self.items = items.sorted { ($0.input, $0.preset ?? "") < ($1.input, $1.preset ?? "") }
    }

    /// Pretty-printed, stable JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

/// One input and the files one preset made from it.
public struct ManifestItem: Sendable, Codable, Equatable {
    /// The item's key: its URL, or its path (relative to the preset's folder when inside it).
    public var input: String
    /// The preset that made the files: its file's path relative to the output root (see
    /// `ManifestStore.presetKey`); nil in records of manifests from before version 2.
    public var preset: String?
    public var identity: InputIdentity
    public var outputs: [OutputFile]

    public init(input: String, preset: String? = nil, identity: InputIdentity, outputs: [OutputFile]) {
        self.input = input
        self.preset = preset
        self.identity = identity
        self.outputs = outputs.sorted { $0.path < $1.path }
    }

    /// One line of a journal.
    func line() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
