import CVips
import CVipsBridge
import Foundation
import WorkbenchCore

/// What a call returned: its required outputs by argument name.
struct VipsCallOutputs {
    var images: [String: VipsImage] = [:]
    var blobs: [String: Data] = [:]
    /// Numbers, words and lists, ready to be written as JSON.
    var values: [String: any Sendable] = [:]
    /// Warnings libvips logged while the call ran (a decoder working around damage).
    var warnings: [String] = []
    /// No other call ran meanwhile, so `warnings` are this call's own.
    var clean = true
}
