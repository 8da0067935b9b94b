import CHelperProcess
import Glibc

/// The helper process's start in Swift's terms (`CHelperProcess`): a memory file, a pipe, and
/// `posix_spawn` with exactly the descriptors a helper gets.
enum HelperSpawn {
    /// A memory file for pixels (close-on-exec); -1 with `errno` when none can be made.
    static func memoryFile(_ name: String) -> Int32 { wbh_memory_file(name) }

    /// A pipe (both ends close-on-exec) into `ends`; false with `errno` when none can be made.
    static func pipe(_ ends: inout [Int32]) -> Bool { wbh_pipe(&ends) == 0 }

    /// Starts `arguments` (`arguments[0]` the executable) with `socket` as descriptor 3,
    /// `memory` as 4 and `output` as its standard output and error: its pid, or -1 with `errno`.
    static func spawn(_ arguments: [String], socket: Int32, memory: Int32, output: Int32) -> pid_t {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let pid = wbh_spawn(arguments[0], &argv, socket, memory, output)
        let spawnError = errno
        for argument in argv { free(argument) }
        errno = spawnError
        return pid
    }
}
