import Foundation

/// A `workbench` process whose standard output and error are a real terminal: the slave side
/// of a pseudo-terminal this object opened, sized by `stty` before the command starts. What the
/// process writes is read from the master side and played into a `TerminalScreen`, so a test
/// sees the screen a person would see.
public final class PseudoTerminal {
    public enum Failure: Error, CustomStringConvertible {
        case unavailable(String)
        public var description: String {
            switch self { case .unavailable(let why): "no pseudo-terminal: \(why)" }
        }
    }

    /// What the run left: its status, the final screen, and what `watch` saw along the way.
    public struct Result {
        public let status: Int32
        public let screen: TerminalScreen
    }

    /// Runs `workbench arguments` in `directory` on a `columns` × `rows` terminal. `watch` is
    /// called with the screen after every chunk read from the terminal.
    public static func run(_ arguments: [String], in directory: URL, columns: Int, rows: Int,
                           watch: (TerminalScreen) -> Void) throws -> Result {
        // glibc declares these only under _XOPEN_SOURCE, which Swift's Glibc module leaves out;
        // they are plain C functions in libc, found by name.
        guard let openpt = libc("posix_openpt", as: (@convention(c) (Int32) -> Int32).self),
              let grantpt = libc("grantpt", as: (@convention(c) (Int32) -> Int32).self),
              let unlockpt = libc("unlockpt", as: (@convention(c) (Int32) -> Int32).self),
              let ptsname = libc("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        else { throw Failure.unavailable("libc has no posix_openpt") }
        let master = openpt(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw Failure.unavailable("posix_openpt: \(String(cString: strerror(errno)))") }
        defer { close(master) }
        guard grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw Failure.unavailable("grantpt/unlockpt/ptsname: \(String(cString: strerror(errno)))")
        }
        let slavePath = String(cString: name)
        guard let slave = FileHandle(forUpdatingAtPath: slavePath) else { throw Failure.unavailable("cannot open \(slavePath)") }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // stty sizes the terminal the command then sees through TIOCGWINSZ.
        process.arguments = ["-c", "stty cols \(columns) rows \(rows) <&2 && exec \"$0\" \"$@\"", CLIProcess.executable.path] + arguments
        process.currentDirectoryURL = directory
        var environment = CLIProcess.environment
        environment["TERM"] = "xterm-256color"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        // Only the child holds the slave now, so reading the master ends (EIO) when it exits.
        try slave.close()

        var screen = TerminalScreen(columns: columns)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count <= 0 { break }
            screen.play(buffer[0..<count])
            watch(screen)
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, screen: screen)
    }
}

private func libc<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}

/// The screen of a terminal, as much of one as a progress display uses: text, carriage return,
/// line feed, cursor up/down/left/right, erase to the end of the line or the screen; colours and
/// cursor visibility are read and ignored. Rows are kept without limit, like scrollback.
public struct TerminalScreen {
    public let columns: Int
    private var rows: [[Character]] = [[]]
    private var row = 0, column = 0
    private var pending: [UInt8] = []
    /// Whether a line ever ran past the right edge and wrapped onto the next row.
    public private(set) var wrapped = false

    public init(columns: Int) { self.columns = columns }

    /// The screen's rows, trailing spaces and empty rows at the bottom removed.
    public var text: String {
        var lines = rows.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    public mutating func play<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        pending.append(contentsOf: bytes)
        // Keep an unfinished UTF-8 sequence for the next chunk.
        var end = pending.count
        var back = 0
        while end > 0, back < 4, pending[end - 1] & 0xC0 == 0x80 { end -= 1; back += 1 }
        if end > 0, pending[end - 1] >= 0xC0 {
            let lead = pending[end - 1]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            if back + 1 < length { end -= 1 } else { end = pending.count }
        } else {
            end = pending.count
        }
        let text = String(decoding: pending[0..<end], as: UTF8.self)
        pending.removeFirst(end)
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            switch scalar {
            case "\u{1B}": escape(&characters)
            case "\r": column = 0
            case "\n": moveTo(row: row + 1)
            case "\u{8}": column = max(0, column - 1)
            default:
                if scalar.value < 0x20 { continue }
                if column >= columns { wrapped = true; column = 0; moveTo(row: row + 1) }
                while rows[row].count <= column { rows[row].append(" ") }
                rows[row][column] = Character(scalar)
                column += 1
            }
        }
    }

    private mutating func moveTo(row target: Int) {
        row = max(0, target)
        while rows.count <= row { rows.append([]) }
    }

    /// A CSI sequence: ESC [ parameters final.
    private mutating func escape(_ characters: inout ArraySlice<Unicode.Scalar>) {
        guard characters.first == "[" else { _ = characters.popFirst(); return }
        characters.removeFirst()
        var parameters = ""
        while let scalar = characters.popFirst() {
            if (0x40...0x7E).contains(scalar.value) {
                let count = Int(parameters.split(separator: ";").first ?? "") ?? 1
                switch scalar {
                case "A": moveTo(row: row - count)
                case "B": moveTo(row: row + count)
                case "C": column = min(columns, column + count)
                case "D": column = max(0, column - count)
                case "K": if rows[row].count > column { rows[row].removeSubrange(column...) }
                case "J":
                    if rows[row].count > column { rows[row].removeSubrange(column...) }
                    rows.removeSubrange((row + 1)...)
                default: break  // colours (m), cursor visibility (?25l/h)
                }
                return
            }
            parameters.unicodeScalars.append(scalar)
        }
    }
}
