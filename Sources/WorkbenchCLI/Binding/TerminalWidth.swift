import CTerminal

/// A terminal's width, asked of the kernel (`TIOCGWINSZ`, which Swift's Glibc does not name).
enum TerminalWidth {
    /// Columns of the terminal on `descriptor`; 0 when it is not a terminal.
    static func columns(ofDescriptor descriptor: Int32) -> Int { Int(wb_terminal_columns(descriptor)) }
}
