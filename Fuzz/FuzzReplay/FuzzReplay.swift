import Foundation

/// Runs a fuzz target's check once on every file named on the command line (folders: every
/// file in them), as libFuzzer would, and says how many ran. A crash ends the process, as it
/// would under the fuzzer.
public enum FuzzReplay {
    public static func run(_ check: ([UInt8]) -> Void) {
        var files: [String] = []
        for argument in CommandLine.arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("No such file or folder: \(argument)\n".utf8))
                exit(2)
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            check(Array(data))
        }
        print("ran \(files.count) input\(files.count == 1 ? "" : "s")")
    }
}
