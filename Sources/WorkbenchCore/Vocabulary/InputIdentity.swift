/// What an input was when a run read it: a local file's content hash (with the size and
/// modification time that let a rerun trust it without reading the file again), or a remote
/// image's validators (ETag, Last-Modified) for conditional requests.
public struct InputIdentity: Sendable, Hashable, Codable {
    public var content: String?
    public var size: Int?
    /// Modification time in nanoseconds since 1970.
    public var modifiedNs: Int64?
    public var etag: String?
    public var lastModified: String?

    public init(content: String? = nil, size: Int? = nil, modifiedNs: Int64? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.content = content
        self.size = size
        self.modifiedNs = modifiedNs
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The part of a recipe that stands for the input: a validator the server vouches for, else
    /// the content. Size and time only decide whether the content must be hashed again.
    var recipeText: String {
        if let etag { return "etag:" + etag }
        if let lastModified { return "last-modified:" + lastModified }
        return "content:" + (content ?? "")
    }

    /// Whether a conditional request can ask the server if this is still current.
    var hasValidators: Bool { etag != nil || lastModified != nil }
}
