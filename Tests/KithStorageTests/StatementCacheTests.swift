import Testing
@testable import KithStorage
import KithTestSupport

@Suite("Statement cache")
struct StatementCacheTests {
    @Test("the same SQL text is prepared once, whatever the arguments")
    func reuse() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 1)
        try db.write { tx in
            for i in 1...50 { try tx.execute("INSERT INTO t (id, name) VALUES (\(i), \("n\(i)"))") }
        }
        let prepared = try db.read { conn throws in
            let before = conn.preparedStatementCount
            for i in 1...50 {
                #expect(try conn.queryOne("SELECT name FROM t WHERE id = \(i)")?.get("name") as String? == "n\(i)")
            }
            return conn.preparedStatementCount - before
        }
        #expect(prepared == 1)
        // The cache outlives the read: the next borrower of the reader reuses it.
        let again = try db.read { conn in
            let before = conn.preparedStatementCount
            _ = try conn.query("SELECT name FROM t WHERE id = \(7)")
            return conn.preparedStatementCount - before
        }
        #expect(again == 0)
    }

    @Test("the same SQL nested inside its own iteration gets a separate statement")
    func nestedSameSQL() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 1)
        try db.write { tx in
            for i in 1...5 { try tx.execute("INSERT INTO t (id, name) VALUES (\(i), \("n\(i)"))") }
        }
        var pairs = 0
        try db.read { conn in
            try conn.forEach("SELECT id FROM t WHERE id >= \(1)") { outer in
                let id: Int = try outer.get("id")
                pairs += try conn.query("SELECT id FROM t WHERE id >= \(id)").count
            }
        }
        #expect(pairs == 5 + 4 + 3 + 2 + 1)
    }

    @Test("a cached statement follows a schema change")
    func schemaChange() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 1)
        try db.write { tx in try tx.execute("INSERT INTO t (name) VALUES (\("a"))") }
        #expect(try db.read { try $0.queryOne("SELECT * FROM t")?.columnNames } == ["id", "name"])
        try db.write { tx in try tx.execute("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'") }
        let row = try #require(try db.read { try $0.queryOne("SELECT * FROM t") })
        #expect(row.columnNames == ["id", "name", "extra"])
        #expect(try row.get("extra") as String == "x")
    }

    @Test("a full cache evicts, and the evicted SQL still works")
    func eviction() throws {
        let directory = try TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.statementCacheCapacity = 4
        let db = try Database(path: directory.file("small-cache.sqlite"), configuration: configuration)
        try db.write { tx throws in
            for i in 0..<20 {
                #expect(try tx.queryValue("SELECT \(i) + \(unsafeRaw: String(i))") as Int? == 2 * i)
            }
            #expect(try tx.queryValue("SELECT 1 + \(unsafeRaw: "0")") as Int? == 1)
        }
    }
}
