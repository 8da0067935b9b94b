import Foundation
import WorkbenchCore

extension LiveSession {
    /// What the session needs from the command that starts it.
    public struct Settings: Sendable {
        public var presetPath: String
        /// Inputs given instead of the preset's (paths resolved against `workingDirectory`).
        public var inputs: [String]
        /// The output root; nil: the preset's `output`, else the working directory.
        public var out: String?
        public var workingDirectory: String
        /// The ops presets may use (built-ins and plugins).
        public var registry: @Sendable () -> OpRegistry
        /// Versions for recipes: workbench, libvips, plugins.
        public var versions: @Sendable (Preset) -> [String: String]
        /// Loads the plugins a preset uses; throws to refuse it.
        public var prepare: @Sendable (Preset) throws -> Void
        /// Items the run holds at once (its window): the page's cards go in as these finish.
        public var concurrentItems: Int
        public var offScreenGrace: Double
        /// Longest edge of the copies previews of unsaved values run on.
        public var previewSize: Int
        /// Lists a preset's `s3://` inputs.
        public var remote: (any RemoteListing)?
        /// What the item runs' stages are handed (`RunOptions.services`: the S3 client).
        public var services: StageServices

        public init(presetPath: String, inputs: [String], out: String?, workingDirectory: String,
                    registry: @escaping @Sendable () -> OpRegistry, versions: @escaping @Sendable (Preset) -> [String: String],
                    prepare: @escaping @Sendable (Preset) throws -> Void = { _ in },
                    concurrentItems: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), offScreenGrace: Double = 5,
                    previewSize: Int = 512, remote: (any RemoteListing)? = nil, services: StageServices = StageServices()) {
            self.presetPath = presetPath
            self.inputs = inputs
            self.out = out
            self.workingDirectory = workingDirectory
            self.registry = registry
            self.versions = versions
            self.prepare = prepare
            self.concurrentItems = concurrentItems
            self.offScreenGrace = offScreenGrace
            self.previewSize = previewSize
            self.remote = remote
            self.services = services
        }
    }
}
