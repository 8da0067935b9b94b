// swift-tools-version:6.0
import PackageDescription

// An example plugin with two point kernels: `filmlab.crossProcess` and `filmlab.lightLeak`.
// Build and install it with `workbench plugin build Plugins/FilmLab`.
let package = Package(
    name: "FilmLab",
    products: [
        .library(name: "FilmLab", type: .dynamic, targets: ["FilmLab"]),
    ],
    dependencies: [
        .package(path: "../Kit"),
    ],
    targets: [
        .target(name: "FilmLab", dependencies: [.product(name: "WorkbenchKit", package: "Kit")]),
        .testTarget(name: "FilmLabTests", dependencies: ["FilmLab"]),
    ]
)
