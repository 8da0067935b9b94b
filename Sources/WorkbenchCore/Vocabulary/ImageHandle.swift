/// A decoded image as the scheduler sees it; engines provide the concrete type.
public protocol ImageHandle: AnyObject, Sendable {
    var width: Int { get }
    var height: Int { get }
    var bands: Int { get }
    /// About how many bytes its pixels take once computed.
    var pixelBytes: Int { get }
    /// The image to keep for later runs (`ResultCache`): its pixels computed now if it is a
    /// lazy pipeline, so a run taking it does not compute them again.
    func keptForReuse() throws -> any ImageHandle
}

extension ImageHandle {
    public var pixelBytes: Int { width * height * bands }
    public func keptForReuse() throws -> any ImageHandle { self }
}
