import Foundation

/// Manifests written before the log (version 1 and 2: one JSON document, `workbench-manifest.json`,
/// and shard parts beside it, plus a journal per writer). A store reads them once and folds
/// their records into its log when it saves unsharded; then they are removed.
enum ManifestLegacy {
    static let fileName = "workbench-manifest.json"

    /// The legacy files in `root`, in the order later ones win: the manifest, the parts, the journals.
    static func files(in root: String) -> (documents: [String], journals: [String]) {
        // No folder is no legacy files.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        let documents = names.filter { $0 == fileName } + names.filter { $0.hasPrefix("workbench-manifest.shard-") && $0.hasSuffix(".json") }
        let journals = names.filter { $0.hasPrefix(".workbench-manifest") && $0.hasSuffix(".journal") }
        return (documents.map { root + "/" + $0 }, journals.map { root + "/" + $0 })
    }

    static func read(_ file: String, warnings: inout [String]) -> [ManifestItem] {
        guard let data = FileManager.default.contents(atPath: file) else {
            warnings.append("Cannot read the manifest \"\(file)\"; the items it lists will be redone.")
            return []
        }
        do {
            let document = try JSONDecoder().decode(ManifestDocument.self, from: data)
            guard (1...ManifestDocument.version).contains(document.manifestVersion) else {
                warnings.append("The manifest \"\(file)\" has version \(document.manifestVersion), which this workbench does not know; its items will be redone.")
                return []
            }
            return document.items
        } catch {
            warnings.append("The manifest \"\(file)\" is damaged (\(reason(error))); its items will be redone and the file rewritten.")
            return []
        }
    }

    /// A journal's whole lines (a torn last line is left out).
    static func replay(_ journal: String) -> [ManifestItem] {
        guard let data = FileManager.default.contents(atPath: journal) else { return [] }
        let decoder = JSONDecoder()
        // A torn or foreign line in an old journal is skipped, as the journal format always did.
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(ManifestItem.self, from: Data($0)) }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path.hasPrefix(".") ? String(path.dropFirst()) : path): ") + context.debugDescription
        default:
            return "\(error)"
        }
    }
}
