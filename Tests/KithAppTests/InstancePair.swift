import Foundation
import Glibc
import KithStorage
import KithTestSupport

/// Two `kith serve` processes on one freshly migrated PostgreSQL database,
/// each with its own data directory and port: what a deployment behind a
/// load balancer looks like. Only on PostgreSQL (`KITH_TEST_DATABASE`);
/// `InstancePair.available` says whether one can be made.
///
///     let pair = try InstancePair()
///     let session = WebSession(port: pair.a.port)   // …then pair.b.port
///     pair.stop(pair.b)                              // or pair.kill(pair.a)
final class InstancePair {
    /// One running instance.
    final class Instance {
        let process: KithProcess
        let directory: TemporaryDirectory
        var port: Int { process.port }
        var baseURL: String { "http://127.0.0.1:\(port)" }

        init(databaseURL: String, extraArguments: [String]) throws {
            directory = try TemporaryDirectory("kith-instance")
            process = try KithProcess(
                arguments: ["serve", "--database", databaseURL, "--port", "0", "--data", directory.path, "--quiet"] + extraArguments)
        }
    }

    let a: Instance
    let b: Instance
    let databaseURL: String
    private let database: PostgresTestDatabase

    static var available: Bool { ProcessInfo.processInfo.environment["KITH_TEST_DATABASE"].map { !$0.isEmpty } ?? false }

    /// `extraArguments` go to both `kith serve` command lines.
    init(extraArguments: [String] = []) throws {
        guard let database = try PostgresTestDatabase.fresh() else { throw TestError("InstancePair needs KITH_TEST_DATABASE") }
        self.database = database
        databaseURL = database.url
        // A failed start leaves the database to its own deinit, like every other exit.
        a = try Instance(databaseURL: database.url, extraArguments: extraArguments)
        b = try Instance(databaseURL: database.url, extraArguments: extraArguments)
    }

    /// Stops an instance as `kill` (TERM) would and waits for it to exit.
    func stop(_ instance: Instance) {
        instance.process.signal(SIGTERM)
        _ = instance.process.wait()
    }

    /// Ends an instance without a chance to clean up (SIGKILL).
    func kill(_ instance: Instance) {
        instance.process.signal(SIGKILL)
        _ = instance.process.wait()
    }

    deinit {
        // Stopped before the database is dropped (when `database` goes, after this).
        for instance in [a, b] where instance.process.process.isRunning { stop(instance) }
    }
}
