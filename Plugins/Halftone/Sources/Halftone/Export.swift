import WorkbenchKit

/// The plugin's table: its one filter, made from its parameter values.
@_cdecl("workbench_plugin")
public func workbenchPlugin() -> UnsafeRawPointer {
    Plugin.export(name: "halftone", filters: [
        Plugin.Filter("dots") { p in Dots(size: try p.integer("size"), colour: try p.bool("colour")) },
    ])
}
