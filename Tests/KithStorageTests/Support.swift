import Dispatch
import Testing
import Foundation
import Synchronization
@testable import KithStorage
import KithTestSupport

extension TemporaryDirectory {
    /// Opens a database in this directory with a `t(id, name)` table.
    func database(readers: Int = 4) throws -> Database {
        let database = try Database(path: file("test.sqlite"), readers: readers)
        try database.write { tx in
            try tx.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        }
        return database
    }
}

/// Errors thrown on other threads, collected for the test to check.
final class ErrorLog: Sendable {
    private let errors = Mutex<[String]>([])

    func record(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            errors.withLock { $0.append("\(error)") }
        }
    }

    var all: [String] { errors.withLock { $0 } }
}

extension Queryable {
    func count(_ table: String = "t") throws -> Int {
        try queryValue("SELECT count(*) FROM \(identifier: table)") ?? -1
    }
}

enum FileManagerShim {
    static func createDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}

/// Where a storage test runs. A test whose meaning is the same on both
/// backends takes one as its argument; PostgreSQL joins when the test server
/// is there.
enum TestBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static var available: [TestBackend] { PostgresTestServer.isAvailable ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }
}

/// A database with the `t(id, name)` table on one backend. `finish()`
/// removes it; tests call it in a `defer`, since the store's last use may
/// come before the test's end.
final class TestStore {
    let database: Database
    private let directory: TemporaryDirectory?
    private let scratch: ScratchPostgres?

    init(_ backend: TestBackend, readers: Int = 4) throws {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory()
            self.directory = directory
            scratch = nil
            database = try directory.database(readers: readers)
        case .postgres:
            let scratch = try ScratchPostgres(readers: readers)
            self.scratch = scratch
            directory = nil
            database = scratch.database
        }
    }

    func finish() {
        database.close()
        scratch?.drop()
    }
}
