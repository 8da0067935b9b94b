/// A bucket and a key (or a key prefix): `s3://bucket/photos/2024/a.jpg`. Keys are written as
/// they are, not percent-encoded, as the AWS CLI writes them.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// No leading "/"; empty for the whole bucket; a prefix usually ends with "/".
    public let key: String

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Nil unless `url` is `s3://bucket[/key]` with a bucket name S3 allows.
    public init?(_ url: String) {
        guard url.utf8.count > 5, url.prefix(5).lowercased() == "s3://" else { return nil }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/")
        let bucket = String(rest[..<(slash ?? rest.endIndex)])
        guard Self.isBucketName(bucket) else { return nil }
        self.bucket = bucket
        key = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
    }

    public var description: String { "s3://\(bucket)/\(key)" }

    /// Whether `url` starts with `s3://` (whatever follows).
    public static func isS3(_ url: String) -> Bool { url.utf8.count >= 5 && url.prefix(5).lowercased() == "s3://" }

    /// S3's rules, loosely: 3–63 lowercase letters, digits, dots and hyphens (MinIO and Ceph
    /// accept a few more, so underscores and capitals pass here and the server decides).
    static func isBucketName(_ name: String) -> Bool {
        (1...255).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
    }
}
