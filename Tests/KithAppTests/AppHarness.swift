import Foundation
import Glibc
import KithApp
import KithHTTP
import KithTestSupport

/// Kith itself, started in-process on port 0 against a fresh data directory.
final class AppHarness {
    let directory: TemporaryDirectory
    let kith: KithServer
    /// The server's PostgreSQL database, if it has one; pass it to the next
    /// harness to restart on the same data.
    let postgres: PostgresTestDatabase?
    var port: Int { kith.port }

    var app: KithApp { kith.app }

    /// `prepare` runs before the server starts: tests add routes and topic kinds there.
    init(
        configure: (inout KithConfiguration) -> Void = { _ in }, prepare: (KithApp) -> Void = { _ in },
        postgres shared: PostgresTestDatabase? = nil
    ) throws {
        directory = try TemporaryDirectory("kith-app")
        var configuration = KithConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path + "/data"
        configuration.logRequests = false
        postgres = try shared ?? PostgresTestDatabase.fresh()
        configuration.databaseURL = postgres?.url
        configure(&configuration)
        let app = try makeApp(configuration, logger: Logger(enabled: false))
        prepare(app)
        kith = KithServer(app: app)
        try kith.start()
    }

    deinit {
        kith.shutdown()
    }

    /// What a `kith` command run beside the server needs to reach its
    /// database: the data directory, and the PostgreSQL database if any.
    var storageArguments: [String] {
        ["--data", app.configuration.dataDirectory] + (app.configuration.databaseURL.map { ["--database", $0] } ?? [])
    }

    func get(_ path: String, headers: String = "") throws -> TestResponse {
        let client = try TestClient(port: port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
        return try client.readResponse()
    }
}

/// A `kith` (or `kith-bench`) process, for what only a real process can show:
/// signals, `kill -9`, the command line.
final class KithProcess {
    let process = Process()
    let output = Pipe()
    private(set) var port = 0

    /// The built executables sit beside the test bundle.
    static func executable(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }

    /// - Parameter wrapper: a command that runs the executable in turn,
    ///   such as `prlimit --nofile=128:128`; it must exec, keeping the pid.
    init(_ name: String = "kith", wrapper: [String] = [], arguments: [String]) throws {
        if let command = wrapper.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(wrapper.dropFirst()) + [Self.executable(name).path] + arguments
        } else {
            process.executableURL = Self.executable(name)
            process.arguments = arguments
        }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read the banner for the port the kernel chose.
        var banner = ""
        let deadline = Clock.now + 30
        while Clock.now < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            banner += String(decoding: data, as: UTF8.self)
            if let range = banner.range(of: #"(?:listening on [^:\s]+:|http://127\.0\.0\.1:)(\d+)"#, options: .regularExpression) {
                let match = String(banner[range])
                port = Int(match.split(separator: ":").last!) ?? 0
                if port > 0 { break }
            }
        }
        if port == 0 {
            process.terminate()
            throw TestError("\(name) did not start: \(banner)")
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// User and system CPU time the process has used so far.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name: state is the 3rd field, utime the 14th, stime the 15th.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits for the process to exit and returns its status.
    func wait(timeout: Double = 30) -> Int32? {
        let deadline = Clock.now + timeout
        while process.isRunning && Clock.now < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Runs a built executable to completion and returns its status and output.
func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let result = try runProgram(KithProcess.executable(name).path, arguments, mergingErrors: true)
    return (result.status, result.output)
}
