/// What a rerun found out about an item once its input was read (or vouched for): the input's
/// identity, and the `write` nodes whose files are still what this run would make.
public struct ItemFreshness: Sendable {
    public let identity: InputIdentity
    /// Write node id → the file as recorded, for the files that need no redoing.
    public let upToDate: [String: OutputFile]
    /// True when nothing of the item needs doing: the bytes were not read (or fetched) at all.
    public let wholeItem: Bool

    public init(identity: InputIdentity, upToDate: [String: OutputFile], wholeItem: Bool) {
        self.identity = identity
        self.upToDate = upToDate
        self.wholeItem = wholeItem
    }
}
