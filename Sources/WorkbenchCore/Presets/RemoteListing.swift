/// Lists inputs kept elsewhere than on a disk here — the objects under an `s3://` prefix — for
/// `InputExpansion`. The engine that can reach them (WorkbenchNet) provides it.
public protocol RemoteListing: Sendable {
    /// The items under `url` whose paths below it match `glob` (all of them when nil), listed
    /// as the run takes them. Throws when the listing cannot start at all: no credentials, no
    /// such bucket, a refused key — a run that cannot read its inputs does not start.
    func items(under url: String, matching glob: String?) throws(WorkbenchError) -> ItemSource
}
