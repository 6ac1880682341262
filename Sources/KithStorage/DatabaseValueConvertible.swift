/// A type that can be bound as an SQL argument and decoded from a column.
///
/// Decoding is strict: a value of the wrong storage class fails rather than being
/// coerced, so a schema mistake surfaces as an error instead of as a silently
/// wrong value. The one widening allowed is INTEGER into `Double`, because SQLite
/// itself returns integers from arithmetic on REAL columns whose values happen
/// to be whole.
///
/// Enums with a convertible raw value only need to declare the conformance:
///
///     enum Role: String, DatabaseValueConvertible { case admin, member }
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
    /// Returns nil when `databaseValue` cannot represent `Self` (wrong storage
    /// class, out of range, NULL for a non-optional type, unknown raw value).
    init?(databaseValue: DatabaseValue)
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public init?(databaseValue: DatabaseValue) {
        guard let raw = RawValue(databaseValue: databaseValue) else { return nil }
        self.init(rawValue: raw)
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }

    public init?(databaseValue: DatabaseValue) {
        self = databaseValue
    }
}

/// NULL decodes to nil; anything else must decode as `Wrapped`.
extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.databaseValue
        }
    }

    public init?(databaseValue: DatabaseValue) {
        if case .null = databaseValue {
            self = .none
        } else if let wrapped = Wrapped(databaseValue: databaseValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }

    public init?(databaseValue: DatabaseValue) {
        guard case .integer(let value) = databaseValue else { return nil }
        self = value
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }

    public init?(databaseValue: DatabaseValue) {
        guard case .integer(let value) = databaseValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }

    public init?(databaseValue: DatabaseValue) {
        guard case .integer(let value) = databaseValue, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }

    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

/// Stored as 0 or 1, SQLite's own boolean convention; any non-zero integer
/// reads back as true, as it does in a WHERE clause.
extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }

    public init?(databaseValue: DatabaseValue) {
        guard case .integer(let value) = databaseValue else { return nil }
        self = value != 0
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }

    public init?(databaseValue: DatabaseValue) {
        guard case .text(let value) = databaseValue else { return nil }
        self = value
    }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { .blob(self) }

    public init?(databaseValue: DatabaseValue) {
        guard case .blob(let value) = databaseValue else { return nil }
        self = value
    }
}
