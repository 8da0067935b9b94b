/// A node as written, before its edges are checked.
struct NodeDraft {
    /// Position in the expanded graph (copies of a repeated node each have their own).
    let index: Int
    /// Position of the node as written in the file.
    let sourceIndex: Int
    let id: String
    let idLocation: SourceLocation
    let definition: OpDefinition
    let queue: String
    let scope: NodeScope
    var from: [(id: String, location: SourceLocation)]
    /// Reference parameters: name, `"@id"` or `"@id[*]"`, position.
    let references: [(parameter: String, value: String, location: SourceLocation)]
    let parameters: ParameterValues
    let timeout: Double?
    let retry: NodeRetry
    let location: SourceLocation
    var copy: NodeCopy?
    var path: String { "graph[\(sourceIndex)]" }

    /// Upstream node ids: `from` first, then referenced ids.
    var upstreamIDs: [String] {
        from.map(\.id) + references.map { GraphLinker.referencedID($0.value) }
    }
}
