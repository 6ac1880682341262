import CCrypto

/// One migration file, `NNNN_name.sql`.
public struct Migration: Sendable, Hashable {
    /// The number the file name starts with; migrations apply in this order.
    public let version: Int
    /// The file name, e.g. `0003_add_posts.sql`; also what `schema_migrations`
    /// records.
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// SHA-256 of the file's text, in hex: what `schema_migrations` keeps, so
    /// that a file edited after it was applied is noticed at the next start.
    public var checksum: String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(sql.utf8)
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The version of a well-formed migration file name: digits, an underscore,
    /// then letters, digits, `_` or `-`, and `.sql`. Nil for anything else.
    static func version(fromFileName fileName: String) -> Int? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.utf8.dropLast(4)
        guard let underscore = stem.firstIndex(of: UInt8(ascii: "_")) else { return nil }
        let digits = stem[..<underscore]
        let label = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        guard !label.isEmpty, label.allSatisfy(isLabelByte) else { return nil }
        return String(digits).flatMap { Int($0) }
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

/// A row of `schema_migrations`.
public struct AppliedMigration: Sendable, Hashable {
    public let version: Int
    public let name: String
    /// UTC, ISO 8601 with milliseconds, e.g. `2025-01-31T09:15:02.250Z`.
    public let appliedAt: String
}
