import Synchronization
import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Backup")
struct BackupTests {
    @Test("a backup taken while another thread writes is complete and passes integrity_check")
    func backupUnderLoad() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try db.write { tx in try tx.execute("CREATE TABLE payload (id INTEGER PRIMARY KEY, body BLOB)") }

        let stop = Atomic<Bool>(false)
        let written = Atomic<Int>(0)
        let errors = ErrorLog()
        let writer = TestThread {
            while !stop.load(ordering: .relaxed) {
                errors.record {
                    try db.write { tx in
                        try tx.execute("INSERT INTO t (name) VALUES (\("row"))")
                        try tx.execute("INSERT INTO payload (body) VALUES (\([UInt8](repeating: 7, count: 2_000)))")
                    }
                }
                written.add(1, ordering: .relaxed)
            }
        }
        while written.load(ordering: .relaxed) < 200 {}

        let committedBefore = try db.read { try $0.count() }
        let backupPath = directory.file("backup.sqlite")
        try db.backup(to: backupPath)
        // Keep writing a little after the backup, then stop.
        let target = written.load(ordering: .relaxed) + 50
        while written.load(ordering: .relaxed) < target {}
        stop.store(true, ordering: .relaxed)
        writer.join()
        #expect(errors.all.isEmpty)

        let copy = try Database(path: backupPath)
        try copy.read { conn throws in
            #expect(try conn.queryValue("PRAGMA integrity_check") as String? == "ok")
            #expect(try conn.queryValue("PRAGMA foreign_key_check") as String? == nil)
            let rows = try conn.count()
            #expect(rows >= committedBefore)
            // Rows are numbered 1, 2, ... in commit order: everything committed
            // before the backup is there, with no gaps.
            #expect(try conn.queryValue("SELECT max(id) FROM t") as Int? == rows)
            #expect(try conn.count("payload") == rows)
        }
    }

    @Test("backup refuses to overwrite an existing file")
    func refusesToOverwrite() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try directory.write("existing.sqlite", "precious")
        let error = try #require(throws: DatabaseError.self) { try db.backup(to: directory.file("existing.sqlite")) }
        #expect(error.message.contains("refusing to overwrite"))
        #expect(try String(contentsOfFile: directory.file("existing.sqlite"), encoding: .utf8) == "precious")
    }
}
