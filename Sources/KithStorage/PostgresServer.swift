import CPostgres

/// What must run outside a transaction on a PostgreSQL server: creating and
/// dropping databases, which the tests do to give each test its own.
public enum PostgresServer {
    /// Runs each statement on its own, outside any transaction, on the
    /// server `url` points to.
    public static func run(_ statements: [String], url: String) throws(DatabaseError) {
        let connection = try PostgresConnection.open(url: url, statementCacheCapacity: 0)
        defer { connection.close() }
        for statement in statements {
            try connection.executeScript(statement)
        }
    }

    /// `url` with its database name replaced by `database`.
    public static func url(_ url: String, database: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url + " dbname=" + database }
        let rest = url[scheme.upperBound...]
        let query = rest.firstIndex(of: "?") ?? rest.endIndex
        let slash = rest[..<query].firstIndex(of: "/") ?? query
        return String(url[..<slash]) + "/" + database + String(url[query...])
    }
}
