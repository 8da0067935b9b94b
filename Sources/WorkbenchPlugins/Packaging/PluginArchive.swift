import Foundation
import WorkbenchCore

/// A packed plugin (`name-version.wbplugin`): a POSIX tar of one folder, `name/`, holding the
/// manifest, the library and `SHA256SUMS` (the other files' digests, as `sha256sum` prints
/// them). `tar -tf` lists it and `sha256sum -c` checks it. Written with fixed times and owners,
/// so the same files pack to the same bytes; read accepting nothing but plain files in that one
/// folder (no links, no paths, no second folder), which is all an install needs.
struct PluginArchive {
    /// The folder name inside the archive (the plugin's name).
    let folder: String
    /// The files, by name, in the order they are stored.
    var files: [(name: String, bytes: Data)]

    static let checksums = "SHA256SUMS"
    /// Largest archive read: plugins are a library and a manifest.
    static let maximumSize = 512 << 20

    /// What `SHA256SUMS` says for `files`, in their order.
    static func checksumList(_ files: [(name: String, bytes: Data)]) -> String {
        files.map { "\(SHA256.hex($0.bytes))  \($0.name)\n" }.joined()
    }

    // MARK: Writing

    /// The archive's bytes.
    func encoded() -> Data {
        var out = Data()
        for file in files {
            let executable = file.name.hasSuffix(".so") || file.name.contains(".so.")
            out.append(Self.header(name: folder + "/" + file.name, size: file.bytes.count, mode: executable ? 0o755 : 0o644))
            out.append(file.bytes)
            out.append(Data(count: (512 - file.bytes.count % 512) % 512))
        }
        out.append(Data(count: 1024))
        return out
    }

    private static func header(name: String, size: Int, mode: Int) -> Data {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) {
            for (i, byte) in text.utf8.enumerated() { block[offset + i] = byte }
        }
        func octal(_ value: Int, width: Int) -> String {
            let digits = String(value, radix: 8)
            return String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
        }
        put(name, at: 0)
        put(octal(mode, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(0, width: 12), at: 136)
        put("        ", at: 148)
        block[156] = UInt8(ascii: "0")
        put("ustar", at: 257)
        put("00", at: 263)
        put("root", at: 265)
        put("root", at: 297)
        let sum = block.reduce(0) { $0 + Int($1) }
        put(octal(sum, width: 7), at: 148)
        block[155] = UInt8(ascii: " ")
        return Data(block)
    }

    // MARK: Reading

    /// Reads an archive, refusing (with why) anything but plain files in one folder.
    static func decode(_ data: Data) throws(PluginError) -> PluginArchive {
        func refuse(_ reason: String) -> PluginError { .badPackage(reason) }
        let bytes = [UInt8](data)
        guard bytes.count >= 1024, bytes.count % 512 == 0 else {
            throw refuse("it is not a tar archive, or one cut short (\(bytes.count) bytes, not whole 512-byte blocks)")
        }
        var at = 0
        var folder: String?
        var files: [(name: String, bytes: Data)] = []
        while at + 512 <= bytes.count {
            let block = bytes[at..<at + 512]
            if block.allSatisfy({ $0 == 0 }) { break }
            func field(_ offset: Int, _ length: Int) -> String {
                let slice = bytes[at + offset..<at + offset + length]
                return String(decoding: slice.prefix { $0 != 0 }, as: UTF8.self)
            }
            func number(_ offset: Int, _ length: Int) -> Int? {
                Int(field(offset, length).trimmingCharacters(in: CharacterSet(charactersIn: " ")), radix: 8)
            }
            guard field(257, 5) == "ustar" else { throw refuse("it is not a tar archive (no ustar header at byte \(at))") }
            var sum = 0
            for (i, byte) in block.enumerated() { sum += (148..<156).contains(i) ? 32 : Int(byte) }
            guard number(148, 8) == sum else { throw refuse("a header's checksum is wrong at byte \(at): the archive is damaged") }
            let name = field(0, 100), type = bytes[at + 156]
            guard field(345, 155).isEmpty else { throw refuse("\(name): long paths are not part of a plugin package") }
            // The folder's own entry (what `tar -cf glow.wbplugin glow` writes first) says nothing more.
            if type == UInt8(ascii: "5") {
                let folderName = name.hasSuffix("/") ? String(name.dropLast()) : name
                guard !folderName.isEmpty, !folderName.contains("/"), ![".", ".."].contains(folderName) else {
                    throw refuse("\(name): a plugin package holds files directly in one folder")
                }
                if let folder, folder != folderName { throw refuse("it holds two folders, \(folder) and \(folderName)") }
                folder = folderName
                at += 512
                continue
            }
            guard type == UInt8(ascii: "0") || type == 0 else {
                throw refuse("\(name) is not a plain file (links and folders are not part of a plugin package)")
            }
            let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, ![".", ".."].contains(parts[0]),
                  ![".", ".."].contains(parts[1]) else {
                throw refuse("\(name): a plugin package holds files directly in one folder")
            }
            if let folder, folder != parts[0] { throw refuse("it holds two folders, \(folder) and \(parts[0])") }
            folder = parts[0]
            guard !files.contains(where: { $0.name == parts[1] }) else { throw refuse("\(name) is in it twice") }
            guard let size = number(124, 12), size >= 0, at + 512 + size <= bytes.count else {
                throw refuse("\(name) is cut short: the archive is truncated")
            }
            files.append((parts[1], Data(bytes[at + 512..<at + 512 + size])))
            at += 512 + (size + 511) / 512 * 512
        }
        guard let folder else { throw refuse("it is empty") }
        return PluginArchive(folder: folder, files: files)
    }

    /// Checks every file against `SHA256SUMS`: each listed, each matching, none missing.
    func verify() throws(PluginError) {
        guard let list = files.first(where: { $0.name == Self.checksums }) else {
            throw .badPackage("it has no \(Self.checksums) (pack it with workbench plugin pack)")
        }
        var listed: [String: String] = [:]
        for line in String(decoding: list.bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].count == 64 else { throw .badPackage("\(Self.checksums) has a line it cannot read: \(line)") }
            listed[parts[1].hasPrefix(" ") || parts[1].hasPrefix("*") ? String(parts[1].dropFirst()) : parts[1]] = parts[0]
        }
        for file in files where file.name != Self.checksums {
            guard let expected = listed.removeValue(forKey: file.name) else {
                throw .badPackage("\(file.name) is not in \(Self.checksums): the package was changed after it was packed")
            }
            guard SHA256.hex(file.bytes) == expected else {
                throw .badPackage("\(file.name) does not match its checksum: the package was changed or damaged after it was packed")
            }
        }
        if let missing = listed.keys.sorted().first {
            throw .badPackage("\(missing) is listed in \(Self.checksums) but missing from the package")
        }
    }
}
