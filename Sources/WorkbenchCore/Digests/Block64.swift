/// The 64-byte blocks SHA-256 and MD5 compress: bytes fed in any pieces come out as whole
/// blocks, read in place when a piece covers one, else gathered here first.
struct Block64: Sendable {
    private var bytes = [UInt8](repeating: 0, count: 64)
    private var count = 0

    mutating func feed(_ input: UnsafeRawBufferPointer, _ compress: (UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        if count > 0 {
            let taken = min(64 - count, input.count)
            for i in 0..<taken { bytes[count + i] = input[i] }
            count += taken
            offset = taken
            guard count == 64 else { return }
            bytes.withUnsafeBytes { compress($0) }
            count = 0
        }
        while input.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + 64)]))
            offset += 64
        }
        for i in offset..<input.count { bytes[i - offset] = input[i] }
        count = input.count - offset
    }
}
