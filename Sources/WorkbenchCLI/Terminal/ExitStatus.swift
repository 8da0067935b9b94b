import ArgumentParser
import WorkbenchKernels
import WorkbenchVips

/// The exit statuses the CLI documents.
enum ExitStatus {
    static let ok: Int32 = 0
    static let badPreset: Int32 = 2
    static let interrupted: Int32 = 130
}
