import Foundation

/// What a program run to completion printed, and how it ended.
public struct ProgramResult: Sendable {
    public let status: Int32
    public let output: String
    /// Empty when standard error was merged into `output`.
    public let errors: String
}

/// Runs `executable` (a path) with `arguments` and waits for it. Standard
/// error goes into `output` when `mergingErrors`, in the order it was
/// written; otherwise it is kept apart, drained beside standard output so
/// that a program filling one pipe cannot stall on it.
public func runProgram(_ executable: String, _ arguments: [String], mergingErrors: Bool = false) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    let errors = mergingErrors ? output : Pipe()
    process.standardError = errors
    try process.run()
    let errorBytes = Locked<Data>(Data())
    let errorHandle = errors.fileHandleForReading
    let drained = mergingErrors ? nil : TestThread {
        let data = errorHandle.readDataToEndOfFile()
        errorBytes.withLock { $0 = data }
    }
    let outputBytes = output.fileHandleForReading.readDataToEndOfFile()
    drained?.join()
    process.waitUntilExit()
    return ProgramResult(
        status: process.terminationStatus, output: String(decoding: outputBytes, as: UTF8.self),
        errors: String(decoding: errorBytes.value, as: UTF8.self))
}
