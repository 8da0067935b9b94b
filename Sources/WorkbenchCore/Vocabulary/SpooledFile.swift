import Foundation

/// An open, already unlinked file holding `count` bytes; closed when the last holder lets go.
public final class SpooledFile: Sendable {
    public let descriptor: Int32
    public let count: Int

    public init(descriptor: Int32, count: Int) {
        self.descriptor = descriptor
        self.count = count
    }

    deinit { close(descriptor) }
}
