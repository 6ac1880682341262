import KithHTTP
import KithStorage
import KithTemplates

/// "Spotted Virginia!": a message for the next page this session sees. A
/// handler sets it in the transaction of the change it reports; the next full
/// page takes it (shows and deletes it), so a refresh does not repeat it and
/// no URL can carry one — a crafted `?spotted=VA` shows nothing. With the page
/// script, an enhanced post follows its redirect to a full page, from which
/// the script swaps in `#flashes`.
///
/// Taking a message is a write, but only when there is one to take: a page
/// view with nothing waiting stays a pure read (`ReadOnlyGetTests`).
enum SessionFlash {
    static func set(_ tx: Transaction, sessionID: Int64, _ flash: Flash, now: Int64) throws {
        _ = try tx.execute("""
            INSERT INTO session_flashes (session_id, kind, message, created_at)
            VALUES (\(sessionID), \(flash.kind.rawValue), \(String(flash.message.prefix(500))), \(now))
            """)
    }

    /// For a session started in `tx` (a password change rotates it): the
    /// person's newest, since one writer makes ids increase.
    static func setForNewestSession(_ tx: Transaction, userID: Int64, _ flash: Flash, now: Int64) throws {
        guard let id = try tx.queryValue("SELECT max(id) FROM sessions WHERE user_id = \(userID)", as: Int64.self) else { return }
        try set(tx, sessionID: id, flash, now: now)
    }

    static func take(_ database: Database, sessionID: Int64) throws -> [Flash] {
        let waiting = try database.read { db in
            try db.queryValue("SELECT count(*) FROM session_flashes WHERE session_id = \(sessionID)", as: Int64.self) ?? 0
        }
        guard waiting > 0 else { return [] }
        return try database.write { tx in
            try tx.query("DELETE FROM session_flashes WHERE session_id = \(sessionID) RETURNING id, kind, message")
                .map { row in (id: try row.get("id", as: Int64.self), kind: try row.get("kind", as: String.self), message: try row.get("message", as: String.self)) }
                .sorted { $0.id < $1.id }
                .map { Flash(Flash.Kind(rawValue: $0.kind) ?? .notice, $0.message) }
        }
    }
}

extension RequestContext {
    /// Leaves `message` for this session's next page, in the transaction of
    /// the change it reports (signed out, there is no session to hold it).
    func flash(_ tx: Transaction, _ message: String, kind: Flash.Kind = .notice) throws {
        guard let session else { return }
        try SessionFlash.set(tx, sessionID: session.id, Flash(kind, message), now: app.now)
    }

    /// The messages waiting for this session, taken: shown once, then gone.
    func takeFlashes() -> [Flash] {
        guard let session, !request.route.runsInline else { return [] }
        do {
            return try SessionFlash.take(app.database, sessionID: session.id)
        } catch {
            // A message is a courtesy: the page is worth more than it.
            app.logger.log(["level": "error", "msg": "taking flash messages failed", "cause": String(describing: error)])
            return []
        }
    }
}
