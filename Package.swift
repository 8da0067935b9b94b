// swift-tools-version:6.0
import PackageDescription

// Dependency direction: WorkbenchCLI → {WorkbenchServe, WorkbenchPlugins} → {WorkbenchVips, WorkbenchNet,
// WorkbenchKernels, WorkbenchReports} → WorkbenchCore; WorkbenchVips also → WorkbenchJPEG (no dependencies) and
// WorkbenchDirect (→ CJPEGCodec, CLcms, CDeflate, CResample, CWebPCodec, CAVIFCodec, CJXLCodec, WorkbenchCore); WorkbenchKernels →
// CMetrics. C sits in small targets (CVips, CCurl, CLcms, CDeflate, CVipsBridge, CKernel, CHelperProcess, CJPEGCodec, CResample,
// CWebPCodec, CAVIFCodec, CJXLCodec, CMetrics), each
// with one thin Swift layer above it.
// The decoder counts a block's nonzero coefficients for every symbol of a refinement scan: with
// the POPCNT instruction (every x86-64 processor since 2008) rather than the baseline's
// fifteen-instruction count, a fifth fewer instructions per progressive photo.
#if arch(x86_64)
let jpegSettings: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-mpopcnt"])]
#else
let jpegSettings: [SwiftSetting] = []
#endif

// The pixel kernels are optimized in debug builds too: the tests compare every kernel with
// libvips on real photos, and unoptimized Swift took 55 s of the suite's time for it.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "FilterWorkbench",
    products: [
        .executable(name: "workbench", targets: ["WorkbenchCLI"]),
        .library(name: "WorkbenchCore", targets: ["WorkbenchCore"]),
        .library(name: "WorkbenchVips", targets: ["WorkbenchVips"]),
        .library(name: "WorkbenchNet", targets: ["WorkbenchNet"]),
        .library(name: "WorkbenchReports", targets: ["WorkbenchReports"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The live workbench's HTTP server (`workbench serve`).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // The kernel contract: one C header shared by the host, built-in kernels and plugins, and
        // the Swift kit over it. They live in Plugins/Kit, the package plugin authors use; the host
        // compiles the same sources.
        .target(name: "CKernel", path: "Plugins/Kit/Sources/CKernel"),
        .target(name: "WorkbenchKit", dependencies: ["CKernel"], path: "Plugins/Kit/Sources/WorkbenchKit", swiftSettings: optimizedInDebug),
        // The C half of the libvips bridge: the SIGABRT guard (real C globals) and kernel nodes.
        .target(name: "CVipsBridge", dependencies: ["CVips", "CKernel"]),
        // libjpeg for the direct path (decode at a DCT scale, encode), with its longjmp kept in C.
        .target(name: "CJPEGCodec", linkerSettings: [.linkedLibrary("jpeg")]),
        // lcms2 (libvips' colour library) for the direct path's conversion of an embedded profile to sRGB.
        .systemLibrary(name: "CLcms", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // libdeflate (libtiff's, so libvips-dev brings it) for PNG's image data, inflated whole.
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // libwebp for the direct path's WebP (planes or pixels in, lossy WebP out).
        .target(name: "CWebPCodec", linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpmux")]),
        // libavif (with libaom) for AVIF from the direct path's planes or pixels, opened on the
        // first AVIF (dlopen): its headers at build time, its library only when used.
        .target(name: "CAVIFCodec", linkerSettings: [.linkedLibrary("dl")]),
        // libjxl's decoder (libvips-dev brings libjxl-dev), to read back a quality search's
        // JPEG XL candidates; opened on first use (dlopen), as CAVIFCodec.
        .target(name: "CJXLCodec", linkerSettings: [.linkedLibrary("dl")]),
        // The direct path's Lanczos passes (AVX2 where the processor has it), optimized in debug
        // builds too.
        .target(name: "CResample", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // Small images without libvips: JPEG → resample → JPEG on our own buffers (issue 36).
        .target(name: "WorkbenchDirect", dependencies: ["CJPEGCodec", "CLcms", "CDeflate", "CResample", "CWebPCodec", "CAVIFCodec", "CJXLCodec", "WorkbenchCore"], swiftSettings: optimizedInDebug),
        .target(
            name: "WorkbenchCore",
            dependencies: [.product(name: "Logging", package: "swift-log")], swiftSettings: optimizedInDebug),
        // SSIMULACRA2 in C (encode's quality target, `measure`), optimized in debug builds too.
        .target(name: "CMetrics", cSettings: [.unsafeFlags(["-O2", "-ffp-contract=off"])]),
        .target(name: "WorkbenchKernels", dependencies: ["WorkbenchKit", "CMetrics"], swiftSettings: optimizedInDebug),
        // Progressive JPEGs decoded at 1/2, 1/4, 1/8 keeping only the coefficients that scale needs (no dependencies).
        .target(name: "WorkbenchJPEG", swiftSettings: jpegSettings),
        .target(name: "WorkbenchVips", dependencies: ["CVips", "CVipsBridge", "WorkbenchCore", "WorkbenchKernels", "WorkbenchJPEG", "WorkbenchDirect",
                                                     .product(name: "Logging", package: "swift-log")]),
        .target(name: "WorkbenchNet", dependencies: ["CCurl", "WorkbenchCore"]),
        // The terminal's width, for the progress display.
        .target(name: "CTerminal"),
        // Following a run: line, progress, report, events and trace reporters (Core only).
        .target(name: "WorkbenchReports", dependencies: ["WorkbenchCore"]),
        // Spawning plugin helpers with a memory file: what Swift's Glibc module does not show.
        .target(name: "CHelperProcess"),
        // Plugins: manifests, discovery, loading, and helper processes that isolate their kernels.
        .target(name: "WorkbenchPlugins", dependencies: ["CHelperProcess", "CKernel", "WorkbenchCore", "WorkbenchKernels", "WorkbenchVips"]),
        // `workbench serve`: a run watched and steered from a browser (Hummingbird on 127.0.0.1).
        .target(name: "WorkbenchServe", dependencies: ["WorkbenchCore", "WorkbenchReports", "WorkbenchVips",
                                                       .product(name: "Hummingbird", package: "hummingbird"),
                                                       .product(name: "Logging", package: "swift-log")],
                // The live page, compiled into the binary as bytes (`Page`).
                resources: [.embedInCode("Page/page.html"), .embedInCode("Page/page.css"), .embedInCode("Page/page.js")]),
        .executableTarget(
            name: "WorkbenchCLI",
            dependencies: [
                "WorkbenchCore", "WorkbenchVips", "WorkbenchNet", "WorkbenchKernels", "WorkbenchPlugins", "WorkbenchReports", "WorkbenchServe", "CTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // packaging/install.sh puts the Swift runtime in PREFIX/lib/workbench: found there once
            // the toolchain's folder (searched first) is gone.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/workbench"])]),
        // `swift run -c release scheduler-bench`: the scheduler against Foundation's OperationQueue.
        .executableTarget(name: "scheduler-bench", dependencies: ["WorkbenchCore"], path: "Benchmarks/SchedulerBench"),
        // `swift run -c release kernel-bench`: Swift kernels against libvips' operations (bench/kernels.sh).
        .executableTarget(name: "kernel-bench", dependencies: ["WorkbenchCore", "WorkbenchVips",
                                                             .product(name: "Logging", package: "swift-log")],
                          path: "Benchmarks/KernelBench"),
        // Fuzz targets (bench/fuzz.sh builds them with libFuzzer; a normal build replays files).
        .target(name: "FuzzReplay", dependencies: ["WorkbenchCore"], path: "Fuzz/FuzzReplay"),
        .executableTarget(name: "fuzz-presets", dependencies: ["FuzzReplay", "WorkbenchCore", "WorkbenchNet", "WorkbenchVips"],
                          path: "Fuzz/PresetFuzz"),
        .executableTarget(name: "fuzz-images", dependencies: ["FuzzReplay", "WorkbenchCore", "WorkbenchVips",
                                                              .product(name: "Logging", package: "swift-log")],
                          path: "Fuzz/ImageFuzz"),
        // The progressive decoder alone (any bytes, shrink 2/4/8), and against libjpeg through libvips.
        .executableTarget(name: "fuzz-jpeg", dependencies: ["FuzzReplay", "WorkbenchJPEG"], path: "Fuzz/JPEGFuzz"),
        // The PNG decoder alone (any bytes).
        .executableTarget(name: "fuzz-png", dependencies: ["CDeflate", "FuzzReplay", "WorkbenchDirect"], path: "Fuzz/PNGFuzz"),
        .executableTarget(name: "fuzz-jpeg-libvips", dependencies: ["FuzzReplay", "WorkbenchJPEG", "WorkbenchVips", "WorkbenchCore"],
                          path: "Fuzz/JPEGDifferentialFuzz"),
        .executableTarget(name: "fuzz-graphs", dependencies: ["FuzzReplay", "WorkbenchCore", "WorkbenchVips",
                                                              .product(name: "Logging", package: "swift-log")],
                          path: "Fuzz/GraphFuzz"),
        // Shared by the test targets: the local HTTP test server, fixtures, running the CLI.
        .target(name: "WorkbenchTestSupport", path: "Tests/Support", exclude: ["test_server.py", "s3_server.py", "oidc_issuer.py", "quiet_server.py", "ceph_cluster.sh", "make_grey.py", "make_pngs.py", "test_plugin.c", "hostile_plugin.c", "browser_test.py", "tuning_browser_test.py", "ssimulacra2_scores.py", "make_ssim2_pairs.sh", "Photos"]),
        .testTarget(name: "WorkbenchCoreTests", dependencies: ["WorkbenchCore", "WorkbenchTestSupport"]),
        .testTarget(name: "WorkbenchKernelsTests", dependencies: ["WorkbenchKernels"]),
        .testTarget(name: "WorkbenchDirectTests", dependencies: ["WorkbenchDirect", "WorkbenchVips", "WorkbenchCore", "WorkbenchTestSupport", "CVips"]),
        .testTarget(name: "WorkbenchJPEGTests", dependencies: ["WorkbenchJPEG", "WorkbenchVips", "WorkbenchCore", "WorkbenchTestSupport", "CVips"]),
        .testTarget(name: "WorkbenchVipsTests", dependencies: ["WorkbenchVips", "WorkbenchJPEG", "WorkbenchCore", "WorkbenchKernels", "WorkbenchTestSupport"]),
        .testTarget(name: "WorkbenchPluginsTests", dependencies: ["WorkbenchPlugins", "WorkbenchCore", "WorkbenchTestSupport"]),
        .testTarget(name: "WorkbenchNetTests", dependencies: ["WorkbenchNet", "WorkbenchCore", "WorkbenchTestSupport"]),
        .testTarget(name: "WorkbenchReportsTests", dependencies: ["WorkbenchReports", "WorkbenchCore"]),
        .testTarget(name: "WorkbenchServeTests", dependencies: [
            "WorkbenchServe", "WorkbenchCore", "WorkbenchVips", "WorkbenchTestSupport",
            .product(name: "Hummingbird", package: "hummingbird")]),
        .testTarget(
            name: "WorkbenchCLITests",
            dependencies: ["WorkbenchCLI", "WorkbenchVips", "WorkbenchNet", "WorkbenchCore", "WorkbenchReports", "WorkbenchTestSupport"]),
    ]
)
