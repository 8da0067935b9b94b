import Foundation
import Testing
import WorkbenchTestSupport

/// `packaging/install.sh` as a user runs it: what it installs works where it is put — without
/// the Swift toolchain, with its plugin kit, man pages and completions — and `--uninstall`
/// takes all of it away.
@Suite struct InstallTests {
    private static let script = Fixtures.packageRoot.appendingPathComponent("packaging/install.sh").path

    private static func shell(_ command: String) throws -> (status: Int32, output: String) {
        try ContainerImageTests.shell(["/bin/bash", "-c", command])
    }

    @Test func anArchiveInstallsWhereThereIsNoToolchainAndUninstallLeavesNothing() throws {
        let folder = try Fixtures.temporaryDirectory("install")
        let prefix = folder.appendingPathComponent("usr local").path
        let packed = try ContainerImageTests.shell([Self.script, "--archive", "--binary", CLIProcess.executable.path, folder.path])
        #expect(packed.status == 0, "\(packed.output)")
        let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".tar.gz") })
        #expect(archive.hasPrefix("filterworkbench-") && archive.contains("-linux-"))
        #expect(try Self.shell("cd '\(folder.path)' && tar -xzf '\(archive)'").status == 0)
        let unpacked = folder.appendingPathComponent(String(archive.dropLast(".tar.gz".count))).path

        // On a machine without Swift: the toolchain's folder hidden under an empty disk, swift off the PATH.
        let toolchain = try Self.shell("ldd '\(CLIProcess.executable.path)' | grep -o '/[^ ]*/libswiftCore.so' | head -1").output
        let runtime = (toolchain.trimmingCharacters(in: .whitespacesAndNewlines) as NSString).deletingLastPathComponent
        #expect(!runtime.isEmpty, "\(toolchain)")
        let out = try Fixtures.temporaryDirectory("install-out").path
        let workbench = prefix + "/bin/workbench"
        let plain = try ContainerImageTests.shell(["/usr/bin/unshare", "-rm", "/bin/bash", "-c",
            "mount -t tmpfs tmpfs \"$1\" && export PATH=/usr/bin:/bin && ! command -v swift && \"$2/install.sh\" \"$3\" "
                + "&& \"$3/bin/workbench\" run \"$3/share/workbench/presets/sepia-thumbnails.json\" --out \"$4\" --progress none",
            "sh", runtime, unpacked, prefix, out])
        #expect(plain.status == 0 && plain.output.contains("Installed workbench") && plain.output.contains("6 succeeded"), "\(plain.output)")

        // `plugin new` finds the installed kit.
        let plugins = try Fixtures.temporaryDirectory("install-plugin")
        let made = try Self.shell("cd '\(plugins.path)' && '\(workbench)' plugin new Glow")
        #expect(made.status == 0 && FileManager.default.fileExists(atPath: plugins.path + "/Glow/Kit/Package.swift"), "\(made.output)")

        // man workbench-run, from the installed pages.
        let page = try Self.shell("MANPATH='\(prefix)/share/man' MANWIDTH=80 man workbench-run 2>&1")
        #expect(page.status == 0 && page.output.contains("workbench run preset") && page.output.contains("--shard I/N"), "\(page.output.prefix(400))")
        #expect(try Self.shell("MANPATH='\(prefix)/share/man' man -w workbench-plugin-new").status == 0)

        // Tab after `workbench run --`, as bash asks the completion function (command, word, word before).
        let bash = try Self.shell("""
            source '\(prefix)/share/bash-completion/completions/workbench' && complete -p workbench && \
            COMP_WORDS=(workbench run --) COMP_CWORD=2 COMP_LINE='workbench run --' COMP_POINT=16 && _workbench workbench -- run && echo "${COMPREPLY[*]}"
            """)
        #expect(bash.output.contains("complete -o filenames -F _workbench workbench"), "\(bash.output)")
        #expect(bash.output.contains("--out") && bash.output.contains("--progress") && bash.output.contains("--shard"), "\(bash.output)")
        let modes = try Self.shell("""
            source '\(prefix)/share/bash-completion/completions/workbench' && \
            COMP_WORDS=(workbench run p.json --progress '') COMP_CWORD=4 COMP_LINE='workbench run p.json --progress ' COMP_POINT=32 && _workbench workbench '' --progress && echo "${COMPREPLY[*]}"
            """)
        #expect(modes.output.contains("plain") && modes.output.contains("tty"), "\(modes.output)")
        #expect(try Self.shell("zsh -n '\(prefix)/share/zsh/site-functions/_workbench'").status == 0)
        let fish = try Self.shell("PATH=\"\(prefix)/bin:$PATH\" XDG_DATA_DIRS='\(prefix)/share' fish -c 'complete -C\"workbench run --pro\"'")
        #expect(fish.output.hasPrefix("--progress\t"), "\(fish.output)")

        // Installed again from the source tree: the earlier install's files are replaced.
        let again = try ContainerImageTests.shell([Self.script, "--binary", CLIProcess.executable.path, prefix])
        #expect(again.status == 0 && again.output.contains("Replacing the install"), "\(again.output)")
        let removed = try ContainerImageTests.shell([Self.script, "--uninstall", prefix])
        #expect(removed.status == 0, "\(removed.output)")
        let left = try Self.shell("find '\(prefix)' -mindepth 1").output
        #expect(left.isEmpty, "left after --uninstall: \(left)")
        #expect(try ContainerImageTests.shell([Self.script, "--uninstall", prefix]).output.contains("no FilterWorkbench installed"))
    }
}
