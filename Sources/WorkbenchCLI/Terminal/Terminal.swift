import Foundation
import ArgumentParser
import Logging

/// Where the CLI's messages go: results to standard output, problems to standard error.
enum Terminal {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func out(_ text: String, terminator: String) {
        FileHandle.standardOutput.write(Data((text + terminator).utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// `body`'s result; what it throws is said on standard error and ends the command with
    /// `status` (an `ExitCode` it throws passes as it is: it was said already).
    static func saying<T>(exit status: (any Error) -> Int32 = { _ in ExitStatus.badPreset }, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(status(error))
        }
    }

    /// Sends swift-log output to standard error at the level the flags ask for; once per process.
    static func startLogging(_ options: OutputOptions) -> Logger {
        let level: Logger.Level = options.verbose ? .debug : options.quiet ? .error : .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "workbench")
    }
}
