import KithStorage

/// Walks every table of a database for anything that still names one user,
/// so a deletion test can prove nothing of them remains — in tables that
/// exist today and in every table a later migration adds, without the test
/// listing them.
///
/// A column counts as naming the user when it is
/// - a foreign key whose parent table is `users` (compared with the user's
///   value of the parent column, `id` unless the key says otherwise);
/// - an integer column called `user_id`, or ending in `_user_id` or `_by`,
///   foreign key or not (`created_by`, `host_user_id`);
/// - `users.id` itself: the user's own row;
/// - any text column holding exactly one of the scope strings the app writes
///   for a user: `user:<username key>` (the sign-in throttle) and
///   `user:<id>` (live viewers).
///
/// Take the walk while the user exists (`EveryTableWalk(userID:in:)` reads
/// their row), then run `references(in:)` before and after deleting them.
struct EveryTableWalk {
    struct Reference: Equatable, CustomStringConvertible {
        var table: String
        var column: String
        var count: Int64

        var description: String { "\(table).\(column): \(count)" }
    }

    let userID: Int64
    /// The user's row as it was, column by column, for foreign keys that
    /// point at a column other than `id`.
    let userRow: [String: DatabaseValue]
    /// Text that names the user in scope columns.
    let scopes: [String]

    /// Remembers what names the user; call before deleting them.
    init(userID: Int64, in database: Database) throws {
        self.userID = userID
        let row = try database.read { try $0.queryOne("SELECT * FROM users WHERE id = \(userID)") }
        var values: [String: DatabaseValue] = [:]
        if let row { for (index, name) in row.columnNames.enumerated() { values[name] = row[index] } }
        userRow = values
        var scopes = ["user:\(userID)"]
        if case .text(let key)? = values["username_key"] { scopes.append("user:" + key) }
        self.scopes = scopes
    }

    /// Every (table, column) that still names the user, with how many rows do.
    func references(in database: Database) throws -> [Reference] {
        try database.read { db in
            var found: [Reference] = []
            for table in try Self.tables(db) {
                for check in try checks(table: table, db) {
                    let count = try db.queryValue(
                        "SELECT count(*) FROM \(identifier: table) WHERE \(identifier: check.column) IN (\(list: check.values))",
                        as: Int64.self) ?? 0
                    if count > 0 { found.append(Reference(table: table, column: check.column, count: count)) }
                }
            }
            return found
        }
    }

    /// Tables the app owns: not SQLite's own, not the migrator's bookkeeping.
    static func tables(_ db: some Queryable & SpeaksDialect) throws -> [String] {
        try TestCatalog.tables(db)
    }

    private struct Check {
        var column: String
        var values: [DatabaseValue]
    }

    /// What to look for in each column of `table` that could name the user.
    private func checks(table: String, _ db: some Queryable & SpeaksDialect) throws -> [Check] {
        var checks: [String: [DatabaseValue]] = [:]
        func add(_ column: String, _ value: DatabaseValue?) {
            guard let value, value != .null, !(checks[column]?.contains(value) ?? false) else { return }
            checks[column, default: []].append(value)
        }
        for key in try TestCatalog.foreignKeys(db, table) {
            guard key.table.lowercased() == "users" else { continue }
            let parentColumn = key.to ?? "id"
            add(key.from, parentColumn == "id" ? .integer(userID) : userRow[parentColumn])
        }
        for (name, type) in try TestCatalog.columns(db, table) {
            let lowered = name.lowercased()
            if type.contains("INT"), lowered == "user_id" || lowered.hasSuffix("_user_id") || lowered.hasSuffix("_by") {
                add(name, .integer(userID))
            }
            if table == "users", lowered == "id" { add(name, .integer(userID)) }
            // Text affinity, or no declared type (which stores text as text).
            if type.contains("TEXT") || type.contains("CHAR") || type.contains("CLOB") || type.isEmpty || type == "ANY" {
                for scope in scopes { add(name, .text(scope)) }
            }
        }
        return checks.sorted { $0.key < $1.key }.map { Check(column: $0.key, values: $0.value) }
    }
}
