import Foundation
import Glibc
import KithStorage
import KithTestSupport

/// Real `kith serve` processes on one freshly migrated PostgreSQL database,
/// each with a data directory and port of its own: what a deployment behind
/// a load balancer looks like. Only on PostgreSQL (`KITH_TEST_DATABASE`);
/// `Instances.available` says whether they can be made. The test may read
/// the shared database directly to count what the instances did.
///
///     guard let instances = try Instances.make() else { return }
///     let a = try instances.launch(["KITH_X": "1"], arguments: ["--media", instances.media])
///     instances.stop(a)                              // or instances.kill(a)
final class Instances {
    /// One running instance.
    final class Instance {
        let process: KithProcess
        let dataDirectory: String
        var port: Int { process.port }
        var baseURL: String { "http://127.0.0.1:\(port)" }

        init(process: KithProcess, dataDirectory: String) {
            self.process = process
            self.dataDirectory = dataDirectory
        }
    }

    let postgres: PostgresTestDatabase
    let directory: TemporaryDirectory
    let database: Database
    private(set) var instances: [Instance] = []
    /// How the instances still running are ended when this goes.
    private let endingSignal: Int32

    var databaseURL: String { postgres.url }
    /// A media directory the instances may share (`--media`).
    var media: String { directory.path + "/media" }

    static var available: Bool { ProcessInfo.processInfo.environment["KITH_TEST_DATABASE"].map { !$0.isEmpty } ?? false }

    /// Nil without `KITH_TEST_DATABASE`. `endingSignal` ends whatever still
    /// runs at the end: SIGTERM lets each instance shut down as `kill` would.
    static func make(endingSignal: Int32 = SIGKILL) throws -> Instances? {
        guard let postgres = try PostgresTestDatabase.fresh() else { return nil }
        return try Instances(postgres, endingSignal: endingSignal)
    }

    private init(_ postgres: PostgresTestDatabase, endingSignal: Int32) throws {
        self.postgres = postgres
        self.endingSignal = endingSignal
        directory = try TemporaryDirectory("kith-instances")
        database = try Database(postgresURL: postgres.url)
    }

    /// Starts one more instance; `environment` is added to its own and
    /// `arguments` to its `kith serve` command line.
    func launch(_ environment: [String: String] = [:], arguments: [String] = []) throws -> Instance {
        let data = directory.path + "/data-\(instances.count)"
        let process = try KithProcess(
            wrapper: ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" },
            arguments: ["serve", "--port", "0", "--data", data, "--database", postgres.url, "--quiet"] + arguments)
        let instance = Instance(process: process, dataDirectory: data)
        instances.append(instance)
        return instance
    }

    func count(_ sql: SQL) throws -> Int64 { try database.read { try $0.queryValue(sql, as: Int64.self) } ?? 0 }

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
        // Stopped before the database is dropped (when `postgres` goes, after this).
        for instance in instances where instance.process.process.isRunning { instance.process.signal(endingSignal) }
        for instance in instances { _ = instance.process.wait(timeout: endingSignal == SIGKILL ? 10 : 30) }
        database.close()
    }
}

/// Two instances, `a` and `b`, started alike.
///
///     let pair = try InstancePair()
///     let session = WebSession(port: pair.a.port)   // …then pair.b.port
///     pair.stop(pair.b)                              // or pair.kill(pair.a)
final class InstancePair {
    typealias Instance = Instances.Instance

    let instances: Instances
    let a: Instance
    let b: Instance
    var databaseURL: String { instances.databaseURL }

    static var available: Bool { Instances.available }

    /// `extraArguments` go to both `kith serve` command lines.
    init(extraArguments: [String] = []) throws {
        guard let instances = try Instances.make(endingSignal: SIGTERM) else { throw TestError("InstancePair needs KITH_TEST_DATABASE") }
        self.instances = instances
        a = try instances.launch(arguments: extraArguments)
        b = try instances.launch(arguments: extraArguments)
    }

    func stop(_ instance: Instance) { instances.stop(instance) }
    func kill(_ instance: Instance) { instances.kill(instance) }
}
