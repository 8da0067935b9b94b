import WorkbenchCore

/// Several reporters as one: each event goes to each, in order.
public final class ReporterGroup: Reporter {
    public let reporters: [any Reporter]

    public init(_ reporters: [any Reporter]) { self.reporters = reporters }

    /// The most any member needs.
    public var detail: RunOptions.EventDetail {
        reporters.contains { $0.detail == .nodes } ? .nodes : reporters.contains { $0.detail == .items } ? .items : .none
    }

    public func handle(_ event: RunEvent) {
        for reporter in reporters { reporter.handle(event) }
    }

    /// Finishes every member; the first error is thrown after all have had their turn.
    public func finish() throws {
        var first: (any Error)?
        for reporter in reporters {
            do { try reporter.finish() } catch { first = first ?? error }
        }
        if let first { throw first }
    }
}
