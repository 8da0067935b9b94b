// swift-tools-version:6.0
import PackageDescription

// WorkbenchKit: what a plugin author writes kernels against. The C header in CKernel is the one
// contract between the host and plugins; WorkbenchKit's Swift types stay inside each library
// (each plugin and the host compile their own copy), so no Swift type crosses between them.
let package = Package(
    name: "WorkbenchKit",
    products: [
        .library(name: "WorkbenchKit", targets: ["WorkbenchKit"]),
    ],
    targets: [
        .target(name: "CKernel"),
        .target(name: "WorkbenchKit", dependencies: ["CKernel"]),
    ]
)
