import WorkbenchKit

@_cdecl("workbench_plugin")
public func workbenchPlugin() -> UnsafeRawPointer {
    Plugin.export(name: "benchsepia", filters: [
        Plugin.Filter("sepia") { p in ColourMatrixKernel(name: "benchsepia.sepia", matrix: .sepia(intensity: try p.number("intensity"))) },
    ])
}
