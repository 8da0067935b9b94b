/// A glob matched against a relative path given as text (a bucket's key below its prefix),
/// with `TreeGlob`'s rules: `*`, `?`, `[…]` and `{a,b}` within one part, in either case when the
/// part has a wildcard; `**` for any number of folders; names starting with "." only matched
/// by a part that starts with "." too.
public struct PathPattern: Sendable {
    private let parts: [String]

    public init(_ pattern: String) {
        parts = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The folders a match must start with (the pattern's parts before its first wildcard), to
    /// narrow a listing: `2024/**/*.jpg` lists only `2024/`.
    public var fixedFolder: String {
        let fixed = parts.dropLast().prefix { !TreeGlob.isPattern($0) }
        return fixed.isEmpty ? "" : fixed.joined(separator: "/") + "/"
    }

    public func matches(_ path: String) -> Bool {
        let names = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return Self.match(parts[...], names[...])
    }

    private static func match(_ parts: ArraySlice<String>, _ names: ArraySlice<String>) -> Bool {
        guard let part = parts.first else { return names.isEmpty }
        if part == "**" {
            // Zero folders, or one more (not a hidden one) and try again.
            if match(parts.dropFirst(), names) { return true }
            guard names.count > 1, let name = names.first, !name.hasPrefix(".") else { return false }
            return match(parts, names.dropFirst())
        }
        guard let name = names.first, !name.isEmpty else { return false }
        if name.hasPrefix(".") && !part.hasPrefix(".") { return false }
        let fits = TreeGlob.isPattern(part) ? TreeGlob.matches(part, name) : part == name
        return fits && match(parts.dropFirst(), names.dropFirst())
    }
}
