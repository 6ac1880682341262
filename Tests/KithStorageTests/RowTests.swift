import Testing
@testable import KithStorage
import KithTestSupport

private enum Role: String, DatabaseValueConvertible {
    case admin, member
}

@Suite("Row decoding")
struct RowTests {
    private func row(_ directory: TemporaryDirectory) throws -> Row {
        let db = try directory.database()
        return try #require(try db.read { conn in
            try conn.queryOne("""
                SELECT 1 AS id, 'Ziggy' AS Name, NULL AS bio, 2.5 AS score, 'admin' AS role, 'root' AS bad_role,
                       4294967296 AS big, x'00' AS bytes
                """)
        })
    }

    @Test("columns are read by name (case-insensitively) and by index")
    func access() throws {
        let directory = try TemporaryDirectory()
        let row = try row(directory)
        #expect(try row.get("id") as Int64 == 1)
        #expect(try row.get("name") as String == "Ziggy")
        #expect(try row.get(1) as String == "Ziggy")
        #expect(try row.get("bio") as String? == nil)
        #expect(try row.get("score") as Double == 2.5)
        #expect(try row.get("role") as Role == .admin)
        #expect(row["bio"] == .null)
        #expect(row["nope"] == nil)
        #expect(row[0] == .integer(1))
        #expect(row.count == 8)
    }

    @Test("NULL into a non-optional, a wrong type, or a missing column throws a clear error")
    func decodingErrors() throws {
        let directory = try TemporaryDirectory()
        let row = try row(directory)

        let null = try #require(throws: RowDecodingError.self) { try row.get("bio") as String }
        #expect(null.problem == .unexpectedNull)
        #expect(null.description.contains("\"bio\" is NULL"))

        let mismatch = try #require(throws: RowDecodingError.self) { try row.get("name") as Int }
        #expect(mismatch.problem == .typeMismatch(storageClass: "TEXT"))
        #expect(mismatch.description.contains("cannot be read as Int"))
        #expect(!mismatch.description.contains("Ziggy"))

        #expect(throws: RowDecodingError.self) { try row.get("id") as String }
        #expect(throws: RowDecodingError.self) { try row.get("bytes") as String }
        #expect(throws: RowDecodingError.self) { try row.get("big") as Int32 }
        #expect(throws: RowDecodingError.self) { try row.get("bad_role") as Role }

        let missing = try #require(throws: RowDecodingError.self) { try row.get("nope") as Int }
        #expect(missing.description.contains("no column \"nope\""))
        let outOfRange = try #require(throws: RowDecodingError.self) { try row.get(99) as Int }
        #expect(outOfRange.problem == .indexOutOfRange(count: 8))
    }
}
