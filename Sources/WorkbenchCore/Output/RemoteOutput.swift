/// Where a run's files go when they do not go to a folder here: a bucket. The engine that can
/// reach it (WorkbenchNet) provides one; `OutputRoot(remote:workingFolder:)` wraps it.
///
/// The manifest of such a run is kept in a local working folder while the run goes (the store
/// reads and appends files, as on a disk) and carried to the remote side as it grows:
/// `recorded` after each item, `saved` at the end.
public protocol RemoteOutput: Sendable {
    /// For messages: `s3://bucket/prefix/`.
    var location: String { get }

    /// Puts `bytes` at `path` (relative to the output's location), whole or not at all; an
    /// upload cut off by `cancellation` leaves nothing behind.
    func put(_ bytes: Bytes, at path: String, options: UploadOptions, cancellation: CancellationToken) throws(WorkbenchError)

    /// Deletes the object at `path` (relative to the output's location); one already gone is
    /// no error. A watch prunes what a deleted input made (`workbench watch --prune`).
    func remove(_ path: String) throws(WorkbenchError)

    /// Every object under the output's location, with its size (a listing whose first page is
    /// read now and the rest as the run reaches them): which recorded outputs are still there.
    func inventory() throws(WorkbenchError) -> any OutputListing

    /// Multipart uploads that runs killed mid-upload left under the location, aborted when this
    /// run started (`OutputRoot.removeStaleTemporaryFiles` is the same for a folder).
    var abortedUploads: Int { get }

    /// Aborts the uploads still in flight, for an exit that cannot wait for them (a second
    /// Ctrl-C): a bucket keeps, and bills, the parts of an upload nobody aborts.
    func abortUploadsInFlight()

    /// An item's record was appended to the local log at `log`.
    func recorded(log: String)

    /// The run ended and the manifest was saved; `rewritten`: the log was folded or compacted,
    /// so the remote copy is replaced whole. Throws when the remote copy could not be brought
    /// up to date (the next run then redoes what it did not record).
    func saved(log: String, rewritten: Bool) throws(WorkbenchError)
}

/// How an uploaded object is described to those who fetch it.
public struct UploadOptions: Sendable, Equatable {
    public var contentType: String?
    public var cacheControl: String?
    /// `x-amz-meta-NAME` values.
    public var metadata: [String: String]

    public init(contentType: String? = nil, cacheControl: String? = nil, metadata: [String: String] = [:]) {
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.metadata = metadata
    }

    /// The media type of a file name's extension, for the formats `encode` writes.
    public static func mediaType(of path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "heic", "heif": return "image/heif"
        case "gif": return "image/gif"
        case "tif", "tiff": return "image/tiff"
        case "jxl": return "image/jxl"
        case "json": return "application/json"
        case "jsonl": return "application/x-ndjson"
        case "txt": return "text/plain; charset=utf-8"
        case "html": return "text/html; charset=utf-8"
        case "svg": return "image/svg+xml"
        default: return "application/octet-stream"
        }
    }
}
