import Foundation

/// What makes a run incremental: the manifest earlier runs left in the output root, the
/// recipes of this run's files, and the record this run adds. Give one to `PresetRun.start`
/// and a rerun skips every file whose recipe is unchanged.
///
/// ```swift
/// let manifest = try RunManifest(preset: preset, output: root, versions: ["workbench": "0.1.0", "libvips": "8.14.1"])
/// let run = PresetRun.start(preset, items: items, output: root, manifest: manifest)
/// ```
public final class RunManifest: Sendable {
    public let store: ManifestStore
    public let recipes: RecipeBook
    public var shard: Shard? { store.shard }
    /// Problems found in the files read (a damaged manifest): say them to the user.
    public var warnings: [String] { store.warnings }
    /// Whether a run using this manifest saves it (and lets its lock go) when it ends; false
    /// when one manifest serves many runs in turn, which then only write it.
    public let endsWithRun: Bool

    /// `versions`: "workbench", "libvips", and "plugin NAME" for each plugin, as in reports;
    /// they are part of every recipe. `force` treats every file as out of date. With a bucket
    /// output the prefix is listed to see which recorded outputs are still there, unless
    /// `trustsManifest`.
    public init(preset: Preset, output: OutputRoot, versions: [String: String], force: Bool = false,
                shard: Shard? = nil, endsWithRun: Bool = true, trustsManifest: Bool = false) throws(WorkbenchError) {
        self.endsWithRun = endsWithRun
        // A bucket's working folder is new each run: there the preset is known by its file's name.
        let key = output.remote == nil ? ManifestStore.presetKey(file: preset.file, root: output.path)
            : (preset.file as NSString).lastPathComponent
        store = try ManifestStore(root: output.path, shard: shard, preset: key)
        let presence: RecipeBook.Presence
        if let remote = output.remote {
            // A run that makes everything again needs no listing.
            let inventory = trustsManifest || force ? nil : try remote.inventory()
            presence = inventory.map { .listed($0) } ?? .recorded
            self.inventory = inventory
        } else {
            presence = .onDisk
            inventory = nil
        }
        recipes = RecipeBook(preset: preset, versions: versions, store: store, outputRoot: output.path, force: force, presence: presence)
        remote = output.remote
    }

    /// Where the manifest lives when the output is a bucket: told of each record and of the save.
    let remote: (any RemoteOutput)?
    /// The bucket output's listing, read as the run goes; nil in a folder or with
    /// `trustsManifest`.
    public let inventory: (any OutputListing)?

    /// For the run's last words: the listing of a bucket output stopped part way, so outputs past
    /// that point were made again rather than trusted.
    public var listingWarning: String? {
        inventory?.failure.map { "\($0)" }
    }

    /// Records what an item left in the output root. A finished item's record replaces the
    /// old one; an item that failed or was stopped keeps the old record's other files.
    /// Returns warnings for the item: files it wrote over another preset's.
    func record(_ report: ItemReport) -> [String] {
        let files = report.files + report.upToDate + report.notMade
        let key = recipes.key(of: report.item)
        var outputs = files
        if report.status == .failed || report.status == .cancelled {
            guard !files.isEmpty else { return [] }
            let written = Set(files.map(\.path))
            outputs += (store.item(key)?.outputs ?? []).filter { !written.contains($0.path) }
        }
        let clashes = store.record(ManifestItem(input: key, identity: report.identity ?? InputIdentity(), outputs: outputs))
        remote?.recorded(log: store.path)
        return clashes
    }

    /// Saves the manifest at the end of the run (and carries it to the bucket, if it lives there).
    func save() throws(WorkbenchError) {
        let rewritten = try store.save()
        try remote?.saved(log: store.path, rewritten: rewritten)
    }
}
