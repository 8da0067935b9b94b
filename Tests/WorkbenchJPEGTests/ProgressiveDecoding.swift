import Foundation
import WorkbenchTestSupport
import WorkbenchJPEG

extension Data {
    /// This file through the progressive decoder: the image, or why it was refused.
    func progressive(shrink: Int, keeping size: (width: Int, height: Int)? = nil, memoryLimit: Int = ProgressiveJPEG.defaultMemoryLimit)
        -> Result<ProgressiveJPEG, ProgressiveRefusal> {
        withUnsafeBytes { bytes in
            Result { () throws(ProgressiveRefusal) in try ProgressiveJPEG.decode(bytes, shrink: shrink, keeping: size, memoryLimit: memoryLimit) }
        }
    }
}
