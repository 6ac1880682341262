import KithCrypto
import KithStorage

/// The key for this instance's keyed hashes (signed-out form tokens), made
/// on first start and kept in the database so restarts keep forms valid.
enum InstanceSecret {
    static func load(_ database: Database) throws -> [UInt8] {
        try database.write { tx in
            if let hex = try tx.queryValue("SELECT value FROM settings WHERE key = 'instance_secret'", as: String.self),
                let bytes = Hex.decode(hex), bytes.count == 32
            {
                return bytes
            }
            let bytes = SecureRandom.bytes(32)
            try tx.execute("""
                INSERT INTO settings (key, value) VALUES ('instance_secret', \(Hex.encode(bytes)))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """)
            return bytes
        }
    }
}
