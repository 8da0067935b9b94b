import Foundation
import WorkbenchCore

/// How the preset targets read a fuzz input: a preset, then, after a line `#set`, one `--set`
/// override per line. The preset runs in a folder that holds presets it may extend and a file
/// of filters it may include, so `extends`, `include` and `--set` are fuzzed with the rest.
public struct FuzzInput {
    public let preset: [UInt8]
    public let overrides: [PresetOverride]

    public init(_ bytes: [UInt8]) {
        let marker = Array("\n#set\n".utf8)
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) else {
            preset = bytes
            overrides = []
            return
        }
        preset = Array(bytes[..<start])
        overrides = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
            .split(separator: "\n").prefix(16).compactMap { PresetOverride(String($0)) }
    }

    /// The files `folder(_:)` makes, by name.
    public static let folderFiles: [String: String] = [
        "base.json": #"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"id": "t", "op": "thumbnail", "width": 32}, {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"}]}"#,
        "deep.json": #"{"version": 1, "extends": "base.json", "graph": [{"id": "t", "width": 16}, {"id": "flip", "op": "flip", "from": "t"}]}"#,
        "loop.json": #"{"version": 1, "extends": "loop.json", "graph": [{"op": "read"}]}"#,
        "filters.json": #"{"filters": {"soft": {"summary": "Soft.", "parameters": [{"name": "r", "type": "number", "min": 0, "max": 1e9, "default": 1, "summary": "R."}], "graph": [{"op": "blur", "sigma": "{r}"}]}}}"#,
    ]

    /// A folder with `folderFiles` in it, made once per process under `label`.
    public static func folder(_ label: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in folderFiles { try? Data(text.utf8).write(to: url.appendingPathComponent(name)) }
        return url
    }
}
