/// Where a preset's items come from.
public enum InputSource: Sendable, Equatable {
    /// URLs or paths, in order.
    case list([String])
    /// A glob pattern relative to the preset's folder (`TreeGlob`: wildcard parts match either case).
    case glob(String)
    /// A text file with one URL or path per line (`#` starts a comment).
    case file(String)
    /// Item name → URL or path, in file order.
    case map([MapEntry])
    /// The objects under an `s3://bucket/prefix/`, those whose keys below the prefix match the
    /// glob when there is one, listed as the run takes them (`RemoteListing`).
    case bucket(String, glob: String?)

    public struct MapEntry: Sendable, Equatable {
        public let name: String
        public let source: String
    }
}
