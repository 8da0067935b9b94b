/// What an incremental run knows of the inputs earlier runs read, for the stage that reads an
/// item's input, before it reads: an input still as recorded, when nothing of its item needs
/// doing, is not read (or fetched) at all — the stage returns `Payload.unreadInput`. Which of
/// the item's files need redoing the scheduler decides, from the identity the stage reports.
/// `RecipeBook` answers.
public protocol InputHistory: Sendable {
    /// The recorded identity of a local input whose size and modification time are as
    /// recorded, if nothing of its item needs doing.
    func unchangedLocalInput(_ item: Item, size: Int, modifiedNs: Int64) -> InputIdentity?
    /// The recorded identity, with the validators for a conditional request, if an answer
    /// "not modified" would leave nothing of the item to do.
    func conditionalRequest(for item: Item) -> InputIdentity?
}

/// Where the stage that read an item's input records what it read, on an incremental run
/// (`StageContext.recordInput`): the scheduler keeps it with the body, not in the bytes passed on.
protocol InputRecord: AnyObject, Sendable {
    func record(_ identity: InputIdentity)
}
