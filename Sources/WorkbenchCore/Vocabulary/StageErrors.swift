// What a stage's error can tell the scheduler beyond its message.

/// An error whose cause lies upstream of the node that hit it (an encoder that found the
/// input's bytes damaged): the item's report names `blamedNode` instead.
public protocol BlamingError: Error {
    var blamedNode: String? { get }
}

/// An error about the whole run, not one item (the output disk is full or read-only): the
/// run stops after it instead of failing item after item with the same message.
public protocol RunStoppingError: Error {
    var stopsRun: Bool { get }
}

/// An error that says whether trying again may help (a network blip, a 503), and how soon.
public protocol RetryableError: Error {
    var isRetryable: Bool { get }
    /// Seconds the other side asked us to wait (HTTP Retry-After), if it said.
    var retryAfter: Double? { get }
}
