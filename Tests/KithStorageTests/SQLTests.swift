import Testing
@testable import KithStorage
import KithTestSupport

@Suite("SQL interpolation")
struct SQLTests {
    @Test("an interpolated value becomes a placeholder and is stored as data", arguments: TestBackend.available)
    func hostileValueIsBound(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        let hostile = "'; DROP TABLE t; --"
        let insert: SQL = "INSERT INTO t (name) VALUES (\(hostile))"
        #expect(insert.text == "INSERT INTO t (name) VALUES (?)")
        #expect(insert.arguments == [.text(hostile)])
        #expect(!insert.description.contains("DROP"))

        try db.write { tx in try tx.execute(insert) }
        let stored = try db.read { conn in try conn.queryValue("SELECT name FROM t", as: String.self) }
        #expect(stored == hostile)
        #expect(try db.read { conn in try conn.count() } == 1)
    }

    @Test("fragments compose with their arguments in order", arguments: TestBackend.available)
    func fragmentsCompose(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in
            for name in ["ann", "bob", "cy", "dee"] {
                try tx.execute("INSERT INTO t (name) VALUES (\(name))")
            }
        }
        let longerThan: SQL = "length(name) > \(2)"
        let conditions: [SQL] = [longerThan, "name != \("dee")"]
        let query: SQL = "SELECT name FROM t WHERE \(SQL.join(conditions, separator: " AND ")) ORDER BY \(identifier: "name")"
        #expect(query.text == #"SELECT name FROM t WHERE length(name) > ? AND name != ? ORDER BY "name""#)
        #expect(query.arguments == [.integer(2), .text("dee")])
        let names = try db.read { conn in try conn.query(query).map { try $0.get(0, as: String.self) } }
        #expect(names == ["ann", "bob"])

        let appended = query + " LIMIT \(1)"
        #expect(appended.arguments.count == 3)
        #expect(try db.read { conn in try conn.query(appended).count } == 1)
    }

    @Test("nil binds NULL")
    func nilBindsNull() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        let missing: String? = nil
        let sql: SQL = "INSERT INTO t (name) VALUES (\(missing))"
        #expect(sql.arguments == [.null])
        try db.write { tx in try tx.execute(sql) }
        let kind = try db.read { conn in try conn.queryValue("SELECT typeof(name) FROM t", as: String.self) }
        #expect(kind == "null")
    }

    @Test("a string literal inside an interpolation is bound, not spliced")
    func literalStringIsBound() {
        let sql: SQL = "SELECT \("x")"
        #expect(sql.text == "SELECT ?")
        #expect(sql.arguments == [.text("x")])
    }

    @Test("IN lists, identifiers and raw text")
    func listsAndIdentifiers() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try db.write { tx in
            for id in 1...5 { try tx.execute("INSERT INTO t (id, name) VALUES (\(id), \("n\(id)"))") }
        }
        let ids = [2, 4]
        let inList: SQL = "SELECT id FROM t WHERE id IN (\(list: ids)) ORDER BY id"
        #expect(inList.text == "SELECT id FROM t WHERE id IN (?, ?) ORDER BY id")
        #expect(try db.read { conn in try conn.query(inList).map { try $0.get("id", as: Int.self) } } == [2, 4])
        let none: SQL = "SELECT id FROM t WHERE id IN (\(list: [Int]()))"
        #expect(try db.read { conn in try conn.query(none) }.isEmpty)

        #expect(SQL.identifier(#"we"ird"#).text == #""we""ird""#)
        let column = "name"
        let raw: SQL = "SELECT \(unsafeRaw: column) FROM t WHERE id = \(1)"
        #expect(raw.text == "SELECT name FROM t WHERE id = ?")
    }

    private enum Size: String, DatabaseValueConvertible { case small }
    private enum Rank: Int64, DatabaseValueConvertible { case first = 1 }

    @Test("an empty IN list matches nothing and an empty NOT IN list everything, whatever the values' type", arguments: TestBackend.available)
    func emptyLists(backend: TestBackend) throws {
        let store = try TestStore(backend)
        defer { store.finish() }
        let db = store.database
        try db.write { tx in
            for id in 1...3 { try tx.execute("INSERT INTO t (id, name) VALUES (\(id), \("n\(id)"))") }
        }
        func ids(_ sql: SQL) throws -> [Int64] {
            try db.read { conn in try conn.query(sql + " ORDER BY id").map { try $0.get("id", as: Int64.self) } }
        }
        let empty: [SQL] = [
            "SELECT id FROM t WHERE id IN (\(list: [Int64]()))", "SELECT id FROM t WHERE id IN (\(list: [Int]()))",
            "SELECT id FROM t WHERE name IN (\(list: [String]()))", "SELECT id FROM t WHERE name IN (\(list: [Size]()))",
            "SELECT id FROM t WHERE id IN (\(list: [Rank]()))", "SELECT id FROM t WHERE id * 1.5 IN (\(list: [Double]()))",
            "SELECT id FROM t WHERE id IN (\(list: [Int64?]()))",
        ]
        for sql in empty {
            #expect(!sql.text.contains("IN ()"), "\(sql.text)")
            #expect(try ids(sql) == [], "\(sql.text)")
            let negated = SQL.unsafeRaw(sql.text.replacingOccurrences(of: " IN (", with: " NOT IN ("))
            #expect(try ids(negated) == [1, 2, 3], "\(negated.text)")
        }
        // The guard is only for the empty list: one value still binds as before.
        let one: SQL = "SELECT id FROM t WHERE id IN (\(list: [Rank.first]))"
        #expect(one.text == "SELECT id FROM t WHERE id IN (?)")
        #expect(try ids(one) == [1])
    }

    @Test("every supported type round-trips, and empty text and blobs are not NULL")
    func typesRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database()
        try db.write { tx in
            try tx.execute("CREATE TABLE v (i, i64, i32, d, b, s, bytes, blob, empty_s, empty_b, nul_s)")
            try tx.execute("""
                INSERT INTO v VALUES (\(Int.max), \(Int64.min), \(Int32.max), \(2.5), \(true), \("héllo ✓"),
                    \([UInt8]([0, 1, 255])), \(Blob([7, 8])), \(""), \([UInt8]()), \("a\u{0}b"))
                """)
        }
        let row = try #require(try db.read { conn in try conn.queryOne("SELECT * FROM v") })
        #expect(try row.get("i") as Int == .max)
        #expect(try row.get("i64") as Int64 == .min)
        #expect(try row.get("i32") as Int32 == .max)
        #expect(try row.get("d") as Double == 2.5)
        #expect(try row.get("b") as Bool == true)
        #expect(try row.get("s") as String == "héllo ✓")
        #expect(try row.get("bytes") as [UInt8] == [0, 1, 255])
        #expect(try row.get("blob") as Blob == Blob([7, 8]))
        #expect(row["empty_s"] == .text(""))
        #expect(row["empty_b"] == .blob([]))
        #expect(try row.get("nul_s") as String == "a\u{0}b")
        #expect(row.columnNames.first == "i")
    }
}
