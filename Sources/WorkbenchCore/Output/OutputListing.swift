/// What a listing of an output root says of the files there: how an incremental run tells that
/// an output it recorded is still there (a deleted or replaced object is made again), as `stat`
/// does in a folder. A bucket's is `S3Inventory` (WorkbenchNet), read as the run reaches it.
public protocol OutputListing: Sendable {
    /// The size of the object at `path` (relative to the root), or nil when it is not there.
    /// May wait for the part of the listing that reaches `path`.
    func size(of path: String) -> Int?
    /// Objects listed so far.
    var count: Int { get }
    /// Pages read so far.
    var pages: Int { get }
    /// Why the listing stopped before its end, if it did: the outputs past it were made again.
    var failure: WorkbenchError? { get }
}
