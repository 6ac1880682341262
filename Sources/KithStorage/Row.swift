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
    /// Names and lookup table, built once per statement and shared by all its rows.
    @usableFromInline
    final class Columns: Sendable {
        @usableFromInline let names: [String]
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

        @usableFromInline
        func index(of name: String) -> Int? {
            // A few columns are found faster by comparing names (most are
            // small strings, compared as two words) than by hashing.
            if names.count <= 8 {
                for index in names.indices where names[index] == name { return index }
                return indexByFoldedName[name.lowercased()]
            }
            return indexByName[name] ?? indexByFoldedName[name.lowercased()]
        }
    }

    @usableFromInline let columns: Columns
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
    ///
    /// Inlinable so that each caller gets a copy specialized for its `T`:
    /// unspecialized, every call looked up generic metadata at run time,
    /// which cost more than the read itself.
    @inlinable
    public func get<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        guard let index = columns.index(of: column) else { throw missingColumn(column, expecting: T.self) }
        if let decoded = T(databaseValue: values[index]) { return decoded }
        throw undecodable(index: index, label: column, expecting: T.self)
    }

    /// The column at `index` decoded as `T`.
    @inlinable
    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        guard values.indices.contains(index) else { throw outOfRange(index, expecting: T.self) }
        if let decoded = T(databaseValue: values[index]) { return decoded }
        throw undecodable(index: index, label: columns.names[index], expecting: T.self)
    }

    // The failures, out of line: they run once per mistake, not once per read.

    @usableFromInline
    func missingColumn(_ column: String, expecting type: Any.Type) -> RowDecodingError {
        RowDecodingError(column: column, expectedType: "\(type)", problem: .noSuchColumn(available: columns.names))
    }

    @usableFromInline
    func outOfRange(_ index: Int, expecting type: Any.Type) -> RowDecodingError {
        RowDecodingError(column: "#\(index)", expectedType: "\(type)", problem: .indexOutOfRange(count: values.count))
    }

    @usableFromInline
    func undecodable(index: Int, label: String, expecting type: Any.Type) -> RowDecodingError {
        let value = values[index]
        let problem: RowDecodingError.Problem = value.isNull ? .unexpectedNull : .typeMismatch(storageClass: value.storageClass)
        return RowDecodingError(column: label, expectedType: "\(type)", problem: problem)
    }
}

extension Row: CustomStringConvertible {
    /// Column names and storage classes only: values are user data.
    public var description: String {
        let fields = zip(columns.names, values).map { "\($0): \($1.storageClass)" }
        return "Row(\(fields.joined(separator: ", ")))"
    }
}
