import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A prepared statement, owned by one `Connection` and used only by the thread
/// that currently holds that connection.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// Whether the statement lives in the connection's cache (and so must be reset
    /// and kept after use rather than finalized).
    let isCached: Bool
    /// Set while a caller is stepping it, so a nested use of the same SQL text on
    /// the same connection (a query inside a `forEach` over that query) gets its
    /// own statement instead of resetting this one underneath its caller.
    var isInUse = false
    /// Cache recency, for eviction.
    var lastUsed: UInt64 = 0

    init(handle: OpaquePointer, sql: String, isCached: Bool) {
        self.handle = handle
        self.sql = sql
        self.isCached = isCached
    }

    private var connectionHandle: OpaquePointer { sqlite3_db_handle(handle) }

    func error() -> DatabaseError {
        DatabaseError(connection: connectionHandle, sql: sql)
    }

    func bind(_ arguments: [DatabaseValue]) throws(DatabaseError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == arguments.count else {
            throw .misuse("the statement has \(expected) parameters but \(arguments.count) values were given", sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                rc = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                rc = sqlite3_bind_double(handle, index, real)
            case .text(var text):
                rc = text.withUTF8 { utf8 in
                    // A null pointer would bind NULL; an empty string must stay
                    // an empty string.
                    guard let base = utf8.baseAddress, !utf8.isEmpty else {
                        return sqlite3_bind_text(handle, index, "", 0, kith_sqlite3_transient())
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                        sqlite3_bind_text64(handle, index, chars, UInt64(utf8.count), kith_sqlite3_transient(), UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { raw in
                    // Same reasoning: an empty blob is not NULL.
                    guard let base = raw.baseAddress, !raw.isEmpty else {
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    return sqlite3_bind_blob64(handle, index, base, UInt64(raw.count), kith_sqlite3_transient())
                }
            }
            guard rc == SQLITE_OK else { throw error() }
        }
    }

    /// Advances to the next row; false when the statement has finished.
    /// Steps taken so far, so a `RowView` can tell that its row is gone.
    private(set) var stepCount: UInt64 = 0

    func step() throws(DatabaseError) -> Bool {
        stepCount &+= 1
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error()
        }
    }

    /// Runs the statement to completion, discarding any rows.
    func run() throws(DatabaseError) {
        while try step() {}
    }

    /// The layout of the last run, reused while the statement stays cached:
    /// a query that runs thousands of times builds its name tables once.
    private var lastColumns: Row.Columns?

    /// Column names, read after the first step: a cached statement whose schema
    /// changed is recompiled during that step, possibly with other columns, so
    /// a remembered layout is reused only when every name still matches.
    func columns() -> Row.Columns {
        let count = sqlite3_column_count(handle)
        if let last = lastColumns, last.names.count == Int(count), matches(last.names) { return last }
        var names: [String] = []
        names.reserveCapacity(Int(count))
        for index in 0..<count {
            names.append(sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "")
        }
        let columns = Row.Columns(names: names)
        if isCached { lastColumns = columns }
        return columns
    }

    private func matches(_ names: [String]) -> Bool {
        for (index, name) in names.enumerated() {
            guard let current = sqlite3_column_name(handle, Int32(index)) else { return false }
            if !name.withCString({ strcmp($0, current) == 0 }) { return false }
        }
        return true
    }

    /// Stops the program when a `RowView` is read after its statement moved
    /// on (kept past its closure): it would read another row, or none.
    func checkCurrent(_ step: UInt64) {
        precondition(step == stepCount && isInUse, "a RowView was read outside the query(_:decode:) closure it was given to")
    }

    /// Copies the current row out of SQLite.
    func row(columns: Row.Columns) -> Row {
        let count = sqlite3_column_count(handle)
        // Short rows as array literals: those get storage of the exact size
        // from one allocation, where reserving and appending (or
        // `init(unsafeUninitializedCapacity:)`) runs the array's unspecialized
        // growth code, which cost more than reading the values.
        let values: [DatabaseValue]
        switch count {
        case 1: values = [value(at: 0)]
        case 2: values = [value(at: 0), value(at: 1)]
        case 3: values = [value(at: 0), value(at: 1), value(at: 2)]
        case 4: values = [value(at: 0), value(at: 1), value(at: 2), value(at: 3)]
        default:
            var all: [DatabaseValue] = []
            all.reserveCapacity(Int(count))
            for index in 0..<count {
                all.append(value(at: index))
            }
            values = all
        }
        return Row(columns: columns, values: values)
    }

    /// Rows the last run of this statement returned, capped: a query that
    /// runs often tends to return about as many rows each time, so the next
    /// result array can be sized once instead of doubling its way there.
    private(set) var rowCountHint = 0

    func rememberRowCount(_ count: Int) {
        rowCountHint = min(count, 256)
    }

    func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // The pointer must be fetched before the length: the length call is
            // only meaningful for the representation the pointer call produced.
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let length = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            // A zero-length blob comes back as a null pointer.
            guard let blob = sqlite3_column_blob(handle, index) else { return .blob([]) }
            let length = Int(sqlite3_column_bytes(handle, index))
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: length)))
        default:
            return .null
        }
    }

    /// Makes the statement reusable and drops references to bound values. The
    /// result code of reset repeats the last step's error, already reported.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func finalize() {
        sqlite3_finalize(handle)
    }
}
