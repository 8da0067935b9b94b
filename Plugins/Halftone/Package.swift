// swift-tools-version:6.0
import PackageDescription

// An example plugin with an area kernel: `halftone.dots`.
// Build and install it with `workbench plugin build Plugins/Halftone`.
let package = Package(
    name: "Halftone",
    products: [
        .library(name: "Halftone", type: .dynamic, targets: ["Halftone"]),
    ],
    dependencies: [
        .package(path: "../Kit"),
    ],
    targets: [
        .target(name: "Halftone", dependencies: [.product(name: "WorkbenchKit", package: "Kit")]),
        .testTarget(name: "HalftoneTests", dependencies: ["Halftone"]),
    ]
)
