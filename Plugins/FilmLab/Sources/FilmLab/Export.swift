import WorkbenchKit

/// The plugin's table: every filter of plugin.json, made from its parameter values.
@_cdecl("workbench_plugin")
public func workbenchPlugin() -> UnsafeRawPointer {
    Plugin.export(name: "filmlab", filters: [
        Plugin.Filter("crossProcess") { p in CrossProcess(strength: Float(try p.number("strength"))) },
        Plugin.Filter("lightLeak") { p in
            guard let edge = LightLeak.Edge(rawValue: try p.text("edge")) else { throw KernelError("edge is left, right, top or bottom") }
            return LightLeak(strength: Float(try p.number("strength")), edge: edge, reach: Float(try p.number("reach")))
        },
    ])
}
