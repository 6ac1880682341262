/// SQL text with its arguments kept apart from it.
///
/// Written as a string literal, every interpolated value becomes a `?`
/// placeholder and is bound, never spliced, so user input cannot change the
/// statement:
///
///     let name = "'; DROP TABLE users; --"
///     let sql: SQL = "SELECT id FROM users WHERE name = \(name)"
///     // text: "SELECT id FROM users WHERE name = ?", arguments: [.text(name)]
///
/// An interpolated `SQL` is spliced as a fragment with its own arguments, so
/// queries compose. Text that is not a literal enters only through the loudly
/// named `unsafeRaw` (or `identifier:`, which quotes), and a plain `String` can
/// never be passed where `SQL` is expected.
public struct SQL: Sendable, Hashable {
    /// The statement text, with a `?` for every argument.
    public private(set) var text: String
    /// The values bound to the placeholders, in order.
    public private(set) var arguments: [DatabaseValue]

    private init(text: String, arguments: [DatabaseValue]) {
        self.text = text
        self.arguments = arguments
    }

    /// Splices `text` into the statement as-is. Only for text the program itself
    /// controls, such as an identifier picked from a fixed list; never for input.
    public static func unsafeRaw(_ text: String) -> SQL {
        SQL(text: text, arguments: [])
    }

    /// An identifier (table, column) quoted the SQL way, with embedded double
    /// quotes doubled, so any string is safe to use as a name.
    public static func identifier(_ name: String) -> SQL {
        var quoted = "\""
        for character in name {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return SQL(text: quoted, arguments: [])
    }

    /// Joins fragments, e.g. WHERE conditions with `" AND "`.
    public static func join(_ parts: some Sequence<SQL>, separator: SQL) -> SQL {
        var result = SQL(text: "", arguments: [])
        var first = true
        for part in parts {
            if !first { result += separator }
            result += part
            first = false
        }
        return result
    }

    public var isEmpty: Bool { text.isEmpty }

    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result += rhs
        return result
    }

    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.text += rhs.text
        lhs.arguments += rhs.arguments
    }
}

extension SQL: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(text: value, arguments: [])
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(text: stringInterpolation.text, arguments: stringInterpolation.arguments)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var text: String
        fileprivate var arguments: [DatabaseValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            text = ""
            text.reserveCapacity(literalCapacity + interpolationCount)
            arguments.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// A bound value.
        public mutating func appendInterpolation(_ value: some DatabaseValueConvertible) {
            text += "?"
            arguments.append(value.databaseValue)
        }

        /// A bound optional value; `nil` binds NULL. A separate overload because
        /// the compiler warns about an Optional passed where a non-optional
        /// generic is expected in any interpolation.
        public mutating func appendInterpolation<Value: DatabaseValueConvertible>(_ value: Value?) {
            text += "?"
            arguments.append(value.databaseValue)
        }

        /// A fragment, spliced with its arguments.
        public mutating func appendInterpolation(_ fragment: SQL) {
            text += fragment.text
            arguments += fragment.arguments
        }

        /// Comma-separated placeholders for an `IN (...)` list. An empty list
        /// becomes a sub-select of no rows, since PostgreSQL refuses `IN ()`:
        /// `IN` then matches nothing and `NOT IN` everything, on both.
        public mutating func appendInterpolation<Value: DatabaseValueConvertible>(list values: some Sequence<Value>) {
            var first = true
            for value in values {
                text += first ? "?" : ", ?"
                arguments.append(value.databaseValue)
                first = false
            }
            if first { text += "SELECT CAST(NULL AS \(SQL.emptyListType(Value.self))) WHERE 1 = 0" }
        }

        /// A quoted identifier; see `SQL.identifier(_:)`.
        public mutating func appendInterpolation(identifier name: String) {
            appendInterpolation(SQL.identifier(name))
        }

        /// Trusted text spliced as-is; see `SQL.unsafeRaw(_:)`.
        public mutating func appendInterpolation(unsafeRaw text: String) {
            self.text += text
        }
    }
}

extension SQL {
    /// The type of an empty list's NULL. PostgreSQL takes an untyped NULL in a
    /// sub-select for text and then cannot compare it with a number, so the
    /// NULL gets the type the list's values would be bound as: the storage
    /// class `Value` decodes from, or its raw value's for an enum.
    static func emptyListType<Value: DatabaseValueConvertible>(_: Value.Type) -> String {
        if Value.self == DatabaseValue.self { return "TEXT" }
        if let raw = Value.self as? any RawRepresentable.Type { return rawValueType(raw) }
        // Double also decodes integers, so reals are tried first.
        if Value(databaseValue: .real(0.5)) != nil { return "DOUBLE PRECISION" }
        if Value(databaseValue: .integer(0)) != nil { return "BIGINT" }
        if Value(databaseValue: .blob([])) != nil { return "BYTEA" }
        return "TEXT"
    }

    private static func rawValueType<Raw: RawRepresentable>(_: Raw.Type) -> String {
        guard let value = Raw.RawValue.self as? any DatabaseValueConvertible.Type else { return "TEXT" }
        return emptyListType(value)
    }
}

extension SQL: CustomStringConvertible {
    /// The text only: arguments are user data and stay out of logs.
    public var description: String { text }
}
