import KithStorage

/// The home page's SQL: which section a person chose to lead.
enum HomeStore {
    static func leadSection(_ db: some Queryable, userID: Int64) throws -> String? {
        try db.queryValue("SELECT lead FROM home_preferences WHERE user_id = \(userID)", as: String.self)
    }

    static func setLeadSection(_ tx: Transaction, userID: Int64, section: String?) throws {
        guard let section else {
            try tx.execute("DELETE FROM home_preferences WHERE user_id = \(userID)")
            return
        }
        try tx.execute("""
            INSERT INTO home_preferences (user_id, lead) VALUES (\(userID), \(section))
            ON CONFLICT (user_id) DO UPDATE SET lead = excluded.lead
            """)
    }
}
