// swift-tools-version:6.0
import PackageDescription

// The built-in Swift sepia kernel as a plugin, for bench/plugins.sh: its kernel sources are the
// workbench's own (symbolic links), so built-in and plugin run the same code.
let package = Package(
    name: "BenchSepia",
    products: [
        .library(name: "BenchSepia", type: .dynamic, targets: ["BenchSepia"]),
    ],
    dependencies: [
        .package(path: "../../Plugins/Kit"),
    ],
    targets: [
        .target(name: "BenchSepia", dependencies: [.product(name: "WorkbenchKit", package: "Kit")]),
    ]
)
