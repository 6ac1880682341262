/// A column could not be read as the requested type. Describes the column and
/// the storage class found, never the value itself.
public struct RowDecodingError: Error, Sendable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case noSuchColumn(available: [String])
        case indexOutOfRange(count: Int)
        /// NULL read as a non-optional type.
        case unexpectedNull
        /// A value of another storage class, or one the type rejects (out of
        /// range for `Int32`, not a case of an enum).
        case typeMismatch(storageClass: String)
    }

    /// The column name, or `#n` for an index out of range.
    public let column: String
    public let expectedType: String
    public let problem: Problem

    public var description: String {
        switch problem {
        case .noSuchColumn(let available):
            "no column \"\(column)\" to read as \(expectedType); the row has: \(available.joined(separator: ", "))"
        case .indexOutOfRange(let count):
            "no column \(column) to read as \(expectedType); the row has \(count) columns"
        case .unexpectedNull:
            "column \"\(column)\" is NULL; read it as \(expectedType)? if it may be missing"
        case .typeMismatch(let storageClass):
            "column \"\(column)\" holds a \(storageClass) value that cannot be read as \(expectedType)"
        }
    }
}
