import Dispatch
import Foundation
import Synchronization
@testable import KithStorage

/// A fresh directory per test, removed when the test ends.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/kith-storage-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String {
        path + "/" + name
    }

    func write(_ name: String, _ contents: String) throws {
        try contents.write(toFile: file(name), atomically: true, encoding: .utf8)
    }

    /// Opens a database in this directory with a `t(id, name)` table.
    func database(readers: Int = 4) throws -> Database {
        let database = try Database(path: file("test.sqlite"), readers: readers)
        try database.write { tx in
            try tx.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        }
        return database
    }
}

/// An OS thread, as the server's worker pool uses, that can be joined.
final class TestThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let finished = finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.start()
    }

    func join() {
        finished.wait()
    }

    /// False if the thread is still running after `seconds`.
    func join(timeout seconds: Double) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
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
