import Foundation

/// Python's h2 speaking HTTP/2 (prior knowledge, cleartext) through
/// Tests/KithHTTPTests/Fixtures/h2client.py. Each command prints what it saw
/// as one JSON object on its last line; interactive ones print markers
/// before it ("SENT", "OPEN", "GOAWAY") for the test to act on.
public enum HTTP2Client {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../KithHTTPTests/Fixtures/h2client.py").standardized.path

    /// A Python 3 with the h2 package: the first on PATH that has it, or
    /// Debian's, where `make test` installs python3-h2 (a Python manager's
    /// shim earlier on PATH would otherwise hide it and skip these tests).
    static let python: String? = {
        let candidates = Tools.paths("python3") + ["/usr/bin/python3"]
        return candidates.first { (try? runProgram($0, ["-c", "import h2.connection, hpack, hyperframe"]).status) == 0 }
    }()

    /// The tests that need Python's h2 are skipped without it.
    public static var available: Bool { python != nil }

    /// Runs one command to its end and returns its result.
    public static func run(_ command: String, port: Int, _ arguments: [String] = []) throws -> [String: Any] {
        let result = try runProgram(python!, [script, command, String(port)] + arguments)
        guard result.status == 0 else { throw TestError("h2client \(command) failed: \(result.errors)") }
        return try parse(result.output)
    }

    public static func parse(_ output: String) throws -> [String: Any] {
        guard let line = output.split(separator: "\n").last,
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw TestError("h2client printed no result: \(output)") }
        return object
    }

    /// A command left running, so the test can act when it prints a marker.
    public final class Running {
        private let process = Process()
        private let output = Pipe()
        private var seen = ""

        public init(_ command: String, port: Int, _ arguments: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: HTTP2Client.python!)
            process.arguments = [HTTP2Client.script, command, String(port)] + arguments
            process.standardOutput = output
            try process.run()
        }

        /// Reads until `marker` has been printed; false if the program ended first.
        @discardableResult
        public func waitFor(_ marker: String) -> Bool {
            while !seen.contains(marker) {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { return false }
                seen += String(decoding: data, as: UTF8.self)
            }
            return true
        }

        /// Waits for the end and returns the result.
        public func finish() throws -> [String: Any] {
            seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return try HTTP2Client.parse(seen)
        }
    }
}
