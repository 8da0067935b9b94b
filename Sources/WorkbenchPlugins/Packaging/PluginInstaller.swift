import Foundation
import WorkbenchCore

/// Packing a plugin into one file, installing one (from that file or from a built folder) and
/// removing one. An install is checked whole before it is put in place — checksums, manifest,
/// plugin API, toolchain, and the library loaded in a sandboxed helper as a run would — and then
/// appears in one rename; a refused install leaves nothing behind and an earlier version as it was.
public enum PluginInstaller {
    /// What an install put in place.
    public struct Installed: Sendable {
        public let manifest: PluginManifest
        public let folder: String
        /// The version it replaced, if one was installed.
        public let replaced: String?
    }

    /// Writes `<name>-<version>.wbplugin` of the built plugin in `folder` into `directory`;
    /// returns its path.
    public static func pack(folder: String, into directory: String) throws(PluginError) -> String {
        let manifest = try readManifest(folder)
        var files = try contents(of: manifest)
        files.append((PluginArchive.checksums, Data(PluginArchive.checksumList(files).utf8)))
        let path = directory + "/\(manifest.name)-\(manifest.version).wbplugin"
        do throws(WorkbenchError) {
            let writer = try AtomicFileWriter(destination: path)
            writer.write(PluginArchive(folder: manifest.name, files: files).encoded())
            try writer.commit()
        } catch {
            throw .badPackage("\(error)")
        }
        return path
    }

    /// Installs the package file or built plugin folder `source` into `root/<name>`, once a
    /// helper started with `limits` has loaded and accepted it.
    public static func install(_ source: String, into root: String, limits: HelperPool.Limits = .init()) throws(PluginError) -> Installed {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else {
            throw .badPackage("\(source) does not exist (give a .wbplugin file or a built plugin's folder)")
        }
        let files: [(name: String, bytes: Data)]
        if isFolder.boolValue {
            files = try contents(of: try readManifest(source))
        } else {
            // An archive whose size cannot be read is refused below with the same words as one too
            // large or unreadable.
            guard let size = (try? FileManager.default.attributesOfItem(atPath: source))?[.size] as? Int,
                  size <= PluginArchive.maximumSize, let data = FileManager.default.contents(atPath: source) else {
                throw .badPackage("\(source) cannot be read or is larger than \(PluginArchive.maximumSize >> 20) MiB")
            }
            let archive = try PluginArchive.decode(data)
            try archive.verify()
            files = archive.files
        }
        return try install(files, into: root, limits: limits)
    }

    /// Installs a plugin package's manifest (read from `manifest.folder`) with the library built
    /// at `library`: what `workbench plugin build` does with what it built.
    public static func install(_ manifest: PluginManifest, library: String, into root: String,
                               limits: HelperPool.Limits = .init()) throws(PluginError) -> Installed {
        var files = try contents(of: manifest, library: false)
        guard let bytes = FileManager.default.contents(atPath: library) else { throw .badPackage("\(library) cannot be read") }
        files.append((manifest.library, bytes))
        return try install(files, into: root, limits: limits)
    }

    private static func install(_ files: [(name: String, bytes: Data)], into root: String,
                                limits: HelperPool.Limits) throws(PluginError) -> Installed {
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw .badPackage("cannot make the plugin folder \(root): \(error.localizedDescription)")
        }
        // Staged under a dot-name, which the plugin search skips, beside where it will go.
        let staging = root + "/.installing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
            for file in files {
                try file.bytes.write(to: URL(fileURLWithPath: staging + "/" + file.name))
            }
        } catch {
            // Removing our half-made staging folder; the error thrown below is the one that matters.
            try? FileManager.default.removeItem(atPath: staging)
            throw .badPackage("cannot stage the plugin in \(root): \(error.localizedDescription)")
        }
        do throws(PluginError) {
            let manifest = try readManifest(staging)
            try probe(manifest, limits: limits)
            let target = root + "/" + manifest.name
            // The version replaced is for the message only: a damaged old manifest is replaced all the same.
            let replaced = try? PluginManifest.read(folder: target).version
            try putInPlace(staging, at: target)
            return Installed(manifest: try readManifest(target), folder: target, replaced: replaced)
        } catch {
            // Removing our staging folder; the error rethrown below is the one that matters.
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
    }

    /// Removes the plugin `name` from `root`; returns the version removed, if its manifest said.
    @discardableResult
    public static func remove(_ name: String, from root: String) throws(PluginError) -> String? {
        let target = root + "/" + name
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."),
              FileManager.default.fileExists(atPath: target + "/plugin.json") else {
            throw .badPackage("no plugin \"\(name)\" is installed in \(root)")
        }
        // The version is for the message only: a damaged manifest does not stop the removal.
        let version = try? PluginManifest.read(folder: target).version
        // Out of sight in one rename, then deleted: a run never sees half a plugin.
        let doomed = root + "/.removing-\(getpid())-\(name)"
        guard rename(target, doomed) == 0 else {
            throw .badPackage("cannot remove \(target): \(String(cString: strerror(errno)))")
        }
        // Renamed out of sight already; a leftover .removing- folder is hidden from discovery and from runs.
        try? FileManager.default.removeItem(atPath: doomed)
        return version
    }

    /// The files a plugin is made of: its manifest and its library (none for a plugin of
    /// sub-graphs only).
    private static func contents(of manifest: PluginManifest, library: Bool = true) throws(PluginError) -> [(name: String, bytes: Data)] {
        var files: [(name: String, bytes: Data)] = []
        for name in ["plugin.json"] + (manifest.library.isEmpty || !library ? [] : [manifest.library]) {
            guard let bytes = FileManager.default.contents(atPath: manifest.folder + "/" + name) else {
                throw .badPackage("\(manifest.folder)/\(name) cannot be read" + (name == manifest.library ? " (build the plugin first)" : ""))
            }
            files.append((name, bytes))
        }
        return files
    }

    /// The workbench's own check, as a run would make it: the manifest's API, then the library
    /// loaded in a (sandboxed) helper and held to the manifest and this toolchain.
    public static func probe(_ manifest: PluginManifest, limits: HelperPool.Limits = .init()) throws(PluginError) {
        let catalogue = PluginCatalogue(searchPath: PluginSearchPath(folders: [manifest.folder]), limits: limits)
        defer { catalogue.shutdown() }
        if let refusal = catalogue.entries.first?.refusal {
            throw .refused(plugin: manifest.name, folder: manifest.folder, reason: refusal)
        }
        try catalogue.prepare(ops: manifest.filters.filter { $0.graph == nil }.map { ("\(manifest.name).\($0.name)", false) })
    }

    private static func readManifest(_ folder: String) throws(PluginError) -> PluginManifest {
        do {
            return try PluginManifest.read(folder: folder)
        } catch {
            if case .invalidPreset(let diagnostics) = error {
                throw .badPackage("\(folder)/plugin.json: " + diagnostics.map(\.description).joined(separator: "; "))
            }
            if case .unreadablePreset = error {
                throw .badPackage("\(folder) has no readable plugin.json: give a .wbplugin file or a built plugin's folder")
            }
            throw .badPackage("\(error)")
        }
    }

    /// `staging` becomes `target`; an earlier `target` is moved aside first and removed after.
    private static func putInPlace(_ staging: String, at target: String) throws(PluginError) {
        var aside: String?
        if FileManager.default.fileExists(atPath: target) {
            let old = (target as NSString).deletingLastPathComponent + "/.replaced-\(getpid())-" + (target as NSString).lastPathComponent
            guard rename(target, old) == 0 else {
                throw .badPackage("cannot replace \(target): \(String(cString: strerror(errno)))")
            }
            aside = old
        }
        guard rename(staging, target) == 0 else {
            let reason = String(cString: strerror(errno))
            if let aside { _ = rename(aside, target) }
            throw .badPackage("cannot put the plugin in \(target): \(reason)")
        }
        // The old plugin, moved aside: the new one is in place; a leftover hidden folder harms nothing.
        if let aside { try? FileManager.default.removeItem(atPath: aside) }
    }
}
