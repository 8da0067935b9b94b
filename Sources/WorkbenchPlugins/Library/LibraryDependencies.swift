import Foundation

/// The libraries a shared library names as needed (`DT_NEEDED`), read from its ELF file without
/// loading it: how a plugin that declares no Swift toolchain is held to it.
enum LibraryDependencies {
    /// The needed libraries' names, or nil when the file is not a 64-bit little-endian ELF
    /// file this reader understands.
    static func needed(_ path: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [String]? in
            ELF(bytes)?.neededLibraries()
        }
    }

    /// Whether the library needs Swift's runtime (`libswiftCore.so`).
    static func linksSwiftRuntime(_ path: String) -> Bool? {
        needed(path).map { names in names.contains { $0.hasPrefix("libswiftCore.so") } }
    }

    /// Just enough of ELF64: program headers, the dynamic section, its string table.
    private struct ELF {
        let bytes: UnsafeRawBufferPointer

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 64, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46,
                  bytes[4] == 2, bytes[5] == 1 else { return nil }
            self.bytes = bytes
        }

        func integer<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T? {
            guard offset >= 0, offset + MemoryLayout<T>.size <= bytes.count else { return nil }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        struct Segment { let type: UInt32, offset: UInt64, address: UInt64, size: UInt64 }

        func segments() -> [Segment]? {
            guard let table = integer(0x20, UInt64.self), let entrySize = integer(0x36, UInt16.self),
                  let count = integer(0x38, UInt16.self), entrySize >= 56, table < UInt64(bytes.count) else { return nil }
            var segments: [Segment] = []
            for index in 0..<Int(count) {
                let at = Int(table) + index * Int(entrySize)
                guard let type = integer(at, UInt32.self), let offset = integer(at + 8, UInt64.self),
                      let address = integer(at + 16, UInt64.self), let size = integer(at + 32, UInt64.self) else { return nil }
                segments.append(Segment(type: type, offset: offset, address: address, size: size))
            }
            return segments
        }

        func neededLibraries() -> [String]? {
            guard let segments = segments() else { return nil }
            guard let dynamic = segments.first(where: { $0.type == 2 }) else { return [] }
            var needed: [UInt64] = []
            var stringTable: UInt64?
            var at = Int(clamping: dynamic.offset)
            let end = min(bytes.count, at + Int(clamping: dynamic.size))
            while at + 16 <= end, let tag = integer(at, Int64.self), let value = integer(at + 8, UInt64.self), tag != 0 {
                if tag == 1 { needed.append(value) }
                if tag == 5 { stringTable = value }
                at += 16
            }
            // The string table is given as an address: find the loaded segment holding it.
            guard let address = stringTable,
                  let load = segments.first(where: { $0.type == 1 && $0.address <= address && address < $0.address + $0.size }) else {
                return needed.isEmpty ? [] : nil
            }
            let base = Int(clamping: address - load.address + load.offset)
            return needed.compactMap { string(at: base + Int(clamping: $0)) }
        }

        func string(at offset: Int) -> String? {
            guard offset >= 0, offset < bytes.count else { return nil }
            var end = offset
            while end < bytes.count, bytes[end] != 0 { end += 1 }
            return String(decoding: bytes[offset..<end], as: UTF8.self)
        }
    }
}
