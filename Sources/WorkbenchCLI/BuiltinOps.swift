import WorkbenchCore
import WorkbenchNet
import WorkbenchVips

/// Every op this build of the CLI offers.
enum BuiltinOps {
    static let registry = OpRegistry(CoreOps.all + NetStages.all, providers: [VipsStages.provider])
}
