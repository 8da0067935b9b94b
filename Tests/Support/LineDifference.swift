import Foundation

/// Where two texts first differ, line by line, in a few lines a CI log keeps whole (a failed
/// comparison of two 10,000-line documents otherwise prints both).
public enum LineDifference {
    /// nil when the texts are equal.
    public static func first(_ actual: String, _ expected: String) -> String? {
        guard actual != expected else { return nil }
        let got = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let wanted = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(got.count, wanted.count)).first { got[$0] != wanted[$0] } ?? min(got.count, wanted.count)
        func at(_ lines: [Substring], _ index: Int) -> String { index < lines.count ? String(lines[index].prefix(300)) : "(end)" }
        return "first difference at line \(line + 1) of \(got.count) (expected \(wanted.count) lines):\n"
            + "  got:      \(at(got, line))\n  expected: \(at(wanted, line))"
    }
}
