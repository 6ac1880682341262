import Dispatch
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
