import Foundation
import Synchronization
import WorkbenchCore

/// A run's output in a bucket: `--out s3://bucket/prefix/`. Files are PUT as they are written
/// (`S3Upload`); the manifest lives in the bucket as immutable segments (`ManifestSegments`),
/// pulled into a local working folder when the run starts and pushed as it grows — every
/// `segmentItems` items or `segmentSeconds` seconds, and at the end — so a killed pod loses at
/// most the items of one segment, which the next run simply redoes.
public final class S3Output: RemoteOutput {
    public let location: String
    let prefix: S3Location
    let client: S3Client
    let upload: S3Upload
    let segments: ManifestSegments
    /// This run's lease and the marks of its multipart uploads.
    let ledger: UploadLedger
    /// What the manifest's listing found besides segments: the runs' leases and upload marks.
    private let listed = Mutex<[ListPages.Object]>([])
    private let aborted = Mutex(0)
    public var abortedUploads: Int { aborted.withLock { $0 } }

    /// The shards of this prefix whose runs are still alive (their leases fresh), as the
    /// manifest's listing found them when this root was made: `manifest merge` waits for them.
    public var runningShards: [(part: String, secondsSinceRenewal: Double)] {
        ledger.liveParts(listed: listed.withLock { $0 }).filter { $0.part.hasPrefix("shard-") }
    }
    let folder: String
    static let segmentItems = 1_000
    static let segmentSeconds = 10.0
    /// How long a run's lease on its prefix holds after its last renewal (`UploadLedger`).
    public static let leaseExpiry = UploadLedger.expiry
    /// The `disk` queue's concurrency with a bucket output, unless the preset sets its own.
    public static let uploadsInFlight = 16

    private struct Progress {
        var itemsSincePush = 0
        var lastPush = Date()
    }
    private let progress = Mutex(Progress())

    /// Checks the bucket can be reached with the credentials found (a refusal stops the run
    /// here, exit 2), pulls the manifest's segments into a new working folder and returns the
    /// output root for the run. `shard`: this run's part of the manifest.
    /// `run`: the root is for a run, which holds a lease on the prefix and first aborts the
    /// uploads that killed runs left (`UploadLedger`); `manifest show` only reads.
    public static func root(_ url: String, shard: Shard?, client: S3Client, run: Bool = true) throws(WorkbenchError) -> OutputRoot {
        guard let parsed = S3Location(url) else {
            throw .unusableBucket(location: url, reason: "it is not an s3://bucket/prefix/ URL")
        }
        let prefix = S3Location(bucket: parsed.bucket, key: parsed.key.isEmpty || parsed.key.hasSuffix("/") ? parsed.key : parsed.key + "/")
        WorkingFolders.sweep()
        let folder = try WorkingFolders.make()
        let output = S3Output(prefix: prefix, client: client, folder: folder, shard: shard)
        do {
            let others = try output.segments.pull(into: folder)
            output.listed.withLock { $0 = others }
            if run {
                try output.ledger.hold()
                let count = output.ledger.sweep(listed: others)
                output.aborted.withLock { $0 = count }
            }
        } catch {
            WorkingFolders.remove(folder)
            throw .unusableBucket(location: prefix.description, reason: "\(error)")
        }
        return try OutputRoot(remote: output, workingFolder: folder)
    }

    init(prefix: S3Location, client: S3Client, folder: String, shard: Shard?) {
        self.prefix = prefix
        self.client = client
        self.folder = folder
        location = prefix.description
        ledger = UploadLedger(client: client, prefix: prefix, part: shard?.label ?? "main")
        upload = S3Upload(client: client, ledger: ledger)
        segments = ManifestSegments(client: client, prefix: prefix, part: shard?.label ?? "main", ledger: ledger)
    }

    deinit {
        ledger.release()
        WorkingFolders.remove(folder)
    }

    /// Aborts this run's multipart uploads still in flight and lets its lease go, for an exit
    /// that cannot wait (a second Ctrl-C): no parts are left behind.
    public func abortUploadsInFlight() {
        ledger.abortInFlight()
    }

    public func put(_ bytes: Bytes, at path: String, options: UploadOptions, cancellation: CancellationToken) throws(WorkbenchError) {
        let key = S3Location(bucket: prefix.bucket, key: prefix.key + path)
        do {
            try upload.put(bytes.data, to: key, options: options, cancellation: cancellation)
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .writeFailed(path: key.description, reason: "\(error)")
        }
    }

    public func inventory() throws(WorkbenchError) -> any OutputListing {
        let pages = ListPages(client: client, bucket: prefix.bucket, prefix: prefix.key)
        let (prefix, location) = (prefix, location)
        @Sendable func page(_ result: Result<ListPages.Page, DownloadError>, first: Bool) -> Result<S3Inventory.Page, WorkbenchError> {
            result.map { page in
                // Keys are relative to the prefix; the manifest's own objects are among them
                // (no output is ever recorded under its folder).
                S3Inventory.Page(objects: page.keys.filter { $0.key.hasPrefix(prefix.key) }
                                        .map { (String($0.key.dropFirst(prefix.key.count)), $0.size ?? -1) },
                                     next: page.truncated ? page.next : nil)
            }.mapError { error in
                // The first page stops the run; a later one only the listing (`RunManifest.listingWarning`).
                first ? .unusableBucket(location: location, reason: "its objects could not be listed: \(error)")
                    : .listingStopped(location: location, reason: "\(error)")
            }
        }
        let first = try page(pages.start(after: nil).wait(), first: true).get()
        return S3Inventory(first: first, fetch: { token in
            let pending = pages.start(after: token)
            return { page(pending.wait(), first: false) }
        })
    }

    public func remove(_ path: String) throws(WorkbenchError) {
        let object = S3Location(bucket: prefix.bucket, key: prefix.key + path)
        do {
            // S3 answers 204 whether or not the key was there.
            _ = try client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: object), limits: ListPages.limits)
        } catch {
            throw .writeFailed(path: "s3://\(object.bucket)/\(object.key)", reason: "cannot delete it: \(error)")
        }
    }

    public func recorded(log: String) {
        let due = progress.withLock { state -> Bool in
            state.itemsSincePush += 1
            guard state.itemsSincePush >= Self.segmentItems || Date().timeIntervalSince(state.lastPush) >= Self.segmentSeconds else { return false }
            state.itemsSincePush = 0
            state.lastPush = Date()
            return true
        }
        // A push that fails leaves its lines for the next one: the push at the end carries
        // everything not yet in the bucket, and says so if it fails too.
        if due { try? segments.push(log: log) }
    }

    public func saved(log: String, rewritten: Bool) throws(WorkbenchError) {
        defer { ledger.release() }
        do {
            if rewritten { try segments.replace(with: log) } else { try segments.push(log: log) }
        } catch {
            throw .manifestUnwritable(path: segments.folderLocation, reason: "\(error)")
        }
    }
}

/// Local working folders of bucket runs: made under the temporary folder with the process's
/// id in their name, and those of processes that are gone removed at the next start.
enum WorkingFolders {
    static let stem = "workbench-s3-"

    static func make() throws(WorkbenchError) -> String {
        let path = NSTemporaryDirectory() + "/" + stem + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(path, 0o700) == 0 else {
            throw .unusableOutputRoot(path: path, reason: "cannot make a working folder for the manifest (\(String(cString: strerror(errno))))")
        }
        return path
    }

    static func remove(_ path: String) {
        // Our own spool file: gone already is fine, and one left is taken by sweep() on a later run.
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes the folders of processes no longer running (killed runs).
    static func sweep() {
        let base = NSTemporaryDirectory()
        // Sweeping is tidying: an unlistable temporary folder leaves nothing of ours to take.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(stem) {
            guard let pid = Int32(name.dropFirst(stem.count).prefix { $0 != "-" }), pid != getpid(),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            remove(base + "/" + name)
        }
    }
}
