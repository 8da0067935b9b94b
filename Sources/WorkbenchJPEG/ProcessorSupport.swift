import Glibc

/// Whether this processor runs the decoder's code. On x86-64 the module is compiled to count
/// bits with POPCNT (Package.swift), which every x86-64 processor since 2008 has; on one without
/// it the decoder declines every file, and libvips decodes them, rather than the process dying
/// of an illegal instruction.
enum ProcessorSupport {
    static let runsDecoder: Bool = {
        #if arch(x86_64)
        // The kernel's list of the processor's features; unreadable, the decoder stays out.
        guard let file = fopen("/proc/cpuinfo", "r") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 8192)
        while fgets(&line, Int32(line.count), file) != nil {
            let bytes = line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            let text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix("flags") { return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("popcnt") }
        }
        return false
        #else
        return true
        #endif
    }()
}
