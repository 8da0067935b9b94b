import Foundation
import Synchronization
import WorkbenchCore

/// The manifest of a bucket output, as S3 can hold it (objects cannot be appended to):
/// `prefix/workbench-manifest/PART/gGGGG-SSSSSS-TAG.jsonl`, immutable segments whose bytes,
/// in name order, are the log a run on a folder would have written — PART is `main` or a
/// shard's `shard-I-of-N`. A run reads every part and appends to its own, one new segment per
/// push. When the main log is rewritten (shards folded in, stale lines dropped), the whole log
/// goes up as the next generation GGGGG and the older segments are deleted; readers of `main`
/// take its newest generation only, so a reader between the two steps still sees one whole log.
final class ManifestSegments: Sendable {
    let client: S3Client
    let prefix: S3Location
    /// This run's part.
    let part: String
    static let folderName = "workbench-manifest/"
    /// In the name of a rewrite's record of the segments it folded: `main/g00001-folded-TAG`.
    static let foldMark = "-folded-"
    /// A compacted log of a million items is about 500 MB in one segment: bodies that large
    /// are spooled to a temporary file (`Transfer`), not refused.
    static let segmentLimits = Transfer.Limits(timeout: nil, connectTimeout: 10, maxBytes: 1 << 36, maxRedirects: 0, lowSpeedTime: 60)

    private struct State {
        var pushedOffset = 0
        var generation = 0
        var nextSequence = 0
        /// Segments read at the start, and pushed since (deleted when the log is replaced).
        var older: [String] = []
    }
    private let state = Mutex(State())

    /// Marks a log big enough for a multipart upload, as the run's files are.
    let ledger: UploadLedger?

    init(client: S3Client, prefix: S3Location, part: String, ledger: UploadLedger? = nil) {
        self.ledger = ledger
        self.client = client
        self.prefix = prefix
        self.part = part
    }

    var folderLocation: String { "s3://\(prefix.bucket)/\(prefix.key)\(Self.folderName)" }

    /// A segment's name split: generation, sequence.
    static func parse(_ name: Substring) -> (generation: Int, sequence: Int)? {
        let fields = name.split(separator: "-")
        guard fields.count >= 2, fields[0].hasPrefix("g"), let generation = Int(fields[0].dropFirst()), let sequence = Int(fields[1]) else { return nil }
        return (generation, sequence)
    }

    /// Reads every part's segments into `folder` as the log files a folder output would hold.
    /// Returns the other objects the listing found under the folder (runs' leases and upload
    /// marks, `UploadLedger`), so they need no listing of their own.
    @discardableResult
    func pull(into folder: String) throws(DownloadError) -> [ListPages.Object] {
        var others: [ListPages.Object] = []
        var foldRecords: [String] = []
        let pages = ListPages(client: client, bucket: prefix.bucket, prefix: prefix.key + Self.folderName)
        var byPart: [String: [(key: String, generation: Int, sequence: Int)]] = [:]
        var token: String?
        repeat {
            let page = try pages.fetch(after: token)
            for object in page.keys {
                let relative = object.key.dropFirst(prefix.key.count + Self.folderName.count)
                let pieces = relative.split(separator: "/")
                guard pieces.count == 2, let (generation, sequence) = Self.parse(pieces[1]) else {
                    if pieces.count == 2, pieces[1].contains(Self.foldMark) { foldRecords.append(object.key) } else { others.append(object) }
                    continue
                }
                byPart[String(pieces[0]), default: []].append((object.key, generation, sequence))
            }
            token = page.truncated ? page.next : nil
        } while token != nil
        // What rewrites folded: those segments' lines are in a newer generation.
        var folded = Set<String>()
        for record in foldRecords {
            let answer = try client.perform(S3Client.Request(operation: "GetObject", location: S3Location(bucket: prefix.bucket, key: record)),
                                            limits: ListPages.limits)
            folded.formUnion(String(decoding: answer.data, as: UTF8.self).split(separator: "\n").map(String.init))
        }
        var older: [String] = foldRecords
        for (name, segments) in byPart {
            var sorted = segments.sorted { ($0.generation, $0.sequence, $0.key) < ($1.generation, $1.sequence, $1.key) }
            older += sorted.map(\.key)
            if name == "main", let newest = sorted.map(\.generation).max() {
                // The newest generation, then every older segment no rewrite folded: written by
                // another run while a rewrite went on, its lines are newer than the fold's.
                sorted = sorted.filter { $0.generation == newest } + sorted.filter { $0.generation < newest && !folded.contains($0.key) }
            }
            let file = folder + "/" + (name == "main" ? ManifestStore.fileName : "workbench-manifest.\(name).jsonl")
            guard FileManager.default.createFile(atPath: file, contents: nil), let handle = FileHandle(forWritingAtPath: file) else {
                throw .transport(url: file, code: 0, message: "the manifest's working copy cannot be written here (a full or read-only temporary folder?)")
            }
            // Closing a file we only wrote through FileHandle's unbuffered writes: nothing is pending.
            defer { try? handle.close() }
            for segment in sorted {
                let answer = try client.perform(S3Client.Request(operation: "GetObject", location: S3Location(bucket: prefix.bucket, key: segment.key)),
                                                limits: Self.segmentLimits)
                handle.write(answer.data)
            }
            if name == part {
                let size = handle.offsetInFile
                state.withLock { own in
                    own.pushedOffset = Int(size)
                    // The newest generation read (older unfolded segments are read after it).
                    let newest = sorted.map(\.generation).max() ?? 0
                    own.generation = newest
                    own.nextSequence = (sorted.filter { $0.generation == newest }.map(\.sequence).max() ?? -1) + 1
                }
            }
        }
        state.withLock { $0.older = older }
        return others
    }

    /// Puts the lines of `log` not yet in the bucket as the next segment of this run's part.
    func push(log: String) throws(DownloadError) {
        let (offset, generation, sequence) = state.withLock { ($0.pushedOffset, $0.generation, $0.nextSequence) }
        guard let tail = Self.wholeLines(of: log, from: offset), !tail.isEmpty else { return }
        let key = segmentKey(generation: generation, sequence: sequence)
        try S3Upload(client: client, ledger: ledger).put(tail, to: key, options: UploadOptions(contentType: "application/x-ndjson"), cancellation: CancellationToken())
        state.withLock { own in
            own.pushedOffset = offset + tail.count
            own.nextSequence = sequence + 1
            own.older.append(key.key)
        }
    }

    /// Puts the whole of `log` as the next generation of `main`, then deletes every older
    /// segment of every part (shards folded in included).
    func replace(with log: String) throws(DownloadError) {
        let generation = state.withLock { $0.generation } + 1
        let whole = Self.wholeLines(of: log, from: 0) ?? Data()
        if !whole.isEmpty {
            try S3Upload(client: client, ledger: ledger).put(whole, to: segmentKey(generation: generation, sequence: 0),
                                             options: UploadOptions(contentType: "application/x-ndjson"), cancellation: CancellationToken())
        }
        let older = state.withLock { own -> [String] in
            defer { own.older = []; own.generation = generation; own.nextSequence = 1; own.pushedOffset = whole.count }
            return own.older
        }
        // Says which segments the new generation holds before they go, so a reader between the
        // two steps, or any time after, reads an older segment only if nobody folded it: one
        // another writer pushed meanwhile is never hidden by this rewrite.
        let segmentsFolded = older.filter { !$0.contains(Self.foldMark) }
        let record = S3Location(bucket: prefix.bucket, key: prefix.key + Self.folderName + "main/"
                                + String(format: "g%05d%@%@", generation, Self.foldMark, String(UInt32.random(in: 0...UInt32.max), radix: 16)))
        _ = try client.perform(S3Client.Request(operation: "PutObject", method: "PUT", location: record,
                                                body: Data(segmentsFolded.joined(separator: "\n").utf8)), limits: ListPages.limits)
        for key in older {
            _ = try client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: S3Location(bucket: prefix.bucket, key: key)),
                                   limits: ListPages.limits)
        }
    }

    private func segmentKey(generation: Int, sequence: Int) -> S3Location {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let name = String(format: "g%05d-%06d-%@.jsonl", generation, sequence, tag)
        return S3Location(bucket: prefix.bucket, key: prefix.key + Self.folderName + part + "/" + name)
    }

    /// The bytes of `path` from `offset` to its last newline (nil when the file is not there).
    static func wholeLines(of path: String, from offset: Int) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        // Closing a file we only read.
        defer { try? handle.close() }
        // A file shorter than the offset, or unreadable now, has no new whole lines: the next poll
        // reads again.
        guard (try? handle.seek(toOffset: UInt64(offset))) != nil, let data = try? handle.readToEnd() else { return Data() }
        guard let last = data.lastIndex(of: UInt8(ascii: "\n")) else { return Data() }
        return data[data.startIndex...last]
    }
}
