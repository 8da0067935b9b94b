/// A key for a value the caller of a run hands to its stages: the key's module declares it
/// (WorkbenchNet's S3 client is one), so Core carries the value without knowing what it is.
public protocol StageServiceKey {
    associatedtype Value: Sendable
}

/// The values a run's caller passes to its stages (`RunOptions.services`), by key: what a
/// stage needs from outside the preset (a configured client) is handed in, not found in a
/// process-wide variable.
public struct StageServices: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    public subscript<Key: StageServiceKey>(_ key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}
