/// Bytes stored as a BLOB. `[UInt8]` binds the same way; this wrapper exists for
/// model types that want the intent spelled out, and for overload clarity.
public struct Blob: Sendable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

extension Blob: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(bytes) }

    public init?(databaseValue: DatabaseValue) {
        guard case .blob(let bytes) = databaseValue else { return nil }
        self.bytes = bytes
    }
}
