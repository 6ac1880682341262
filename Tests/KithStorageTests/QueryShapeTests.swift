import Testing
@testable import KithStorage
import KithTestSupport

/// Rows are built by column count (short rows one way, longer ones another)
/// and result arrays are sized from the statement's previous run; whatever
/// the shape, every value comes back in its place.
@Suite("Query results whatever their shape")
struct QueryShapeTests {
    @Test("rows of one to seven columns keep every value, of every storage class, in column order")
    func everyWidth() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 1)
        let values: [DatabaseValue] = [.integer(-3), .text("a <longer> text than fits inline"), .real(2.5), .null, .blob([0, 1, 2]), .text(""), .integer(Int64.max)]
        for width in 1...values.count {
            let expected = Array(values.prefix(width))
            var sql: SQL = "SELECT \(expected[0]) AS c0"
            for index in expected.indices.dropFirst() {
                sql = "\(sql), \(expected[index]) AS \(identifier: "c\(index)")"
            }
            let rows = try db.read { try $0.query(sql) }
            #expect(rows.count == 1)
            #expect(rows.first?.values == expected, "width \(width)")
            #expect(rows.first?.columnNames == expected.indices.map { "c\($0)" })
        }
    }

    @Test("a cached query returns every row as its result grows past the remembered size and shrinks again")
    func growingAndShrinking() throws {
        let directory = try TemporaryDirectory()
        let db = try directory.database(readers: 1)
        let query: SQL = "SELECT id, name FROM t ORDER BY id"
        for total in [3, 300, 1, 0, 40] {
            try db.write { tx in
                try tx.execute("DELETE FROM t")
                for id in 0..<total { try tx.execute("INSERT INTO t (id, name) VALUES (\(id), \("name \(id)"))") }
            }
            // Twice each, so the second run starts from this size's hint.
            for _ in 0..<2 {
                let rows = try db.read { try $0.query(query) }
                #expect(rows.count == total)
                #expect(try rows.map { try $0.get("id") as Int } == Array(0..<total))
                #expect(try rows.map { try $0.get(1) as String } == (0..<total).map { "name \($0)" })
            }
        }
    }
}
