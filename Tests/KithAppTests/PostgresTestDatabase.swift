import Foundation
import KithApp
import KithStorage

/// A database of its own for one server on the PostgreSQL test server, when
/// `KITH_TEST_DATABASE` names one (`make test-postgres`); nil otherwise, and
/// the server keeps `kith.sqlite` in its data directory.
///
/// Each is a copy of a template migrated once per test run: CREATE DATABASE
/// … TEMPLATE copies files, which is far quicker than migrating every time.
final class PostgresTestDatabase: Sendable {
    let url: String
    private let name: String
    private let server: String

    private static let server = ProcessInfo.processInfo.environment["KITH_TEST_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }

    /// The migrated template, made on first use; the error, if that failed,
    /// repeats for every server rather than making each retry.
    private static let template: Result<String, any Error>? = server.map { server in
        Result {
            let name = "kith_template_\(getpid())"
            try PostgresServer.run(["DROP DATABASE IF EXISTS \(name)", "CREATE DATABASE \(name)"], url: server)
            let database = try Database(postgresURL: PostgresServer.url(server, database: name))
            defer { database.close() }
            let resources = try Resources.locate(explicitRoot: nil)
            try Migrator(database: database, directory: resources.migrationsDirectory).migrate()
            // A server that outlives the run (a developer's own) would
            // otherwise gather a template per run. A crash skips this, and
            // a later run cannot tell an abandoned template from a live one.
            atexit {
                guard let server = PostgresTestDatabase.server, case .success(let name)? = PostgresTestDatabase.template else { return }
                try? PostgresServer.run(["DROP DATABASE IF EXISTS \(name) WITH (FORCE)"], url: server)
            }
            return name
        }
    }

    static func fresh() throws -> PostgresTestDatabase? {
        guard let server, let template else { return nil }
        return try PostgresTestDatabase(server: server, template: template.get())
    }

    private init(server: String, template: String) throws {
        self.server = server
        name = "kith_app_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresServer.run(["CREATE DATABASE \(name) TEMPLATE \(template)"], url: server)
        url = PostgresServer.url(server, database: name)
    }

    /// The last server using the database is gone: a restart test hands
    /// it from the first harness to the second, as a data directory is.
    deinit {
        try? PostgresServer.run(["DROP DATABASE IF EXISTS \(name) WITH (FORCE)"], url: server)
    }
}
