import WorkbenchCore
import WorkbenchNet
import WorkbenchPlugins
import WorkbenchVips

/// Every op this build of the CLI offers.
enum BuiltinOps {
    static let registry = OpRegistry(CoreOps.all + NetOps.all, providers: [VipsOps.provider])

    /// The built-in ops and the filters of the plugins in `plugins`.
    static func registry(plugins: PluginCatalogue) -> OpRegistry {
        OpRegistry(CoreOps.all + NetOps.all, providers: [VipsOps.provider, plugins.provider])
    }
}
