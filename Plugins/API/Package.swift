// swift-tools-version:6.0
import PackageDescription

// The plugin API lives in its own package so that its product is a shared library that the
// `workbench` host and every plugin link dynamically: one copy of its type metadata in the
// process, or a plugin's protocol casts fail (a target in the host's own package would be
// linked statically into the executable).
let package = Package(
    name: "WorkbenchPluginAPI",
    products: [
        .library(name: "WorkbenchPluginAPI", type: .dynamic, targets: ["WorkbenchPluginAPI"]),
    ],
    targets: [
        .target(name: "WorkbenchPluginAPI"),
    ]
)
