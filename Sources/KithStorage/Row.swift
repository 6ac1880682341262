/// One result row, copied out of SQLite, so it stays valid after the statement
/// moves on and can be handed to another thread.
///
/// Typed access goes through `get`, which throws a `RowDecodingError` for a
/// missing column, a NULL read as a non-optional type, or a value of the wrong
/// storage class:
///
///     let id: Int64 = try row.get("id")
///     let bio = try row.get("bio") as String?
///     let role = try row.get(2, as: Role.self)
public struct Row: Sendable {
    /// Names and lookup table, built once per query and shared by all its rows.
    final class Columns: Sendable {
        let names: [String]
        /// Name to first index: the first of duplicate names wins, as in
        /// `SELECT a.id, b.id`.
        private let indexByName: [String: Int]
        /// The same, lower-cased: SQLite matches column names without regard to
        /// ASCII case, so `get("ID")` should find `id` too.
        private let indexByFoldedName: [String: Int]

        init(names: [String]) {
            self.names = names
            var exact: [String: Int] = [:]
            var folded: [String: Int] = [:]
            for (index, name) in names.enumerated() {
                if exact[name] == nil { exact[name] = index }
                if folded[name.lowercased()] == nil { folded[name.lowercased()] = index }
            }
            indexByName = exact
            indexByFoldedName = folded
        }

        func index(of name: String) -> Int? {
            indexByName[name] ?? indexByFoldedName[name.lowercased()]
        }
    }

    let columns: Columns
    public let values: [DatabaseValue]

    init(columns: Columns, values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    public var columnNames: [String] { columns.names }

    public var count: Int { values.count }

    /// The raw value at `index`, which must be in `0..<count`.
    public subscript(index: Int) -> DatabaseValue {
        values[index]
    }

    /// The raw value of the named column, or nil if the row has no such column.
    public subscript(column: String) -> DatabaseValue? {
        columns.index(of: column).map { values[$0] }
    }

    public func contains(column: String) -> Bool {
        columns.index(of: column) != nil
    }

    /// The named column decoded as `T`.
    public func get<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        guard let index = columns.index(of: column) else {
            throw RowDecodingError(column: column, expectedType: "\(T.self)", problem: .noSuchColumn(available: columns.names))
        }
        return try decode(index: index, label: column)
    }

    /// The column at `index` decoded as `T`.
    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        guard values.indices.contains(index) else {
            throw RowDecodingError(column: "#\(index)", expectedType: "\(T.self)", problem: .indexOutOfRange(count: values.count))
        }
        return try decode(index: index, label: columns.names[index])
    }

    private func decode<T: DatabaseValueConvertible>(index: Int, label: String) throws(RowDecodingError) -> T {
        let value = values[index]
        if let decoded = T(databaseValue: value) { return decoded }
        let problem: RowDecodingError.Problem = value.isNull ? .unexpectedNull : .typeMismatch(storageClass: value.storageClass)
        throw RowDecodingError(column: label, expectedType: "\(T.self)", problem: problem)
    }
}

extension Row: CustomStringConvertible {
    /// Column names and storage classes only: values are user data.
    public var description: String {
        let fields = zip(columns.names, values).map { "\($0): \($1.storageClass)" }
        return "Row(\(fields.joined(separator: ", ")))"
    }
}
