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
///
/// The page script cannot say, when it fetches the page a post led to,
/// whether it will swap a part of it in (and show the message with it) or,
/// finding the page is another one, navigate to that same address (a second
/// request). So a script's fetch shows the message and keeps it for
/// `replayWindow` seconds for a page view of that address, the navigation that
/// may follow at once; a browser's own page view shows what is waiting and
/// deletes it. Reloading the very page a swap showed it on, within those
/// seconds, is the one time a message shows twice.
enum SessionFlash {
    static let replayWindow: Int64 = 5

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

    /// The messages to show now: for the page script's fetch (`byScript`)
    /// those not shown yet, kept a moment; for a browser's page view, those
    /// not shown or shown just now by a fetch, and then none is kept.
    static func take(_ database: Database, sessionID: Int64, page: String, byScript: Bool, now: Int64) throws -> [Flash] {
        let recent = now - replayWindow
        // Anything to show or to tidy? If not, the page stays a pure read.
        let waiting = try database.read { db in
            try db.queryValue("""
                SELECT count(*) FROM session_flashes
                WHERE session_id = \(sessionID) AND (\(!byScript) = 1 OR shown_at IS NULL OR shown_at < \(recent))
                """, as: Int64.self) ?? 0
        }
        guard waiting > 0 else { return [] }
        return try database.write { tx in
            let shown = try tx.query("""
                SELECT kind, message FROM session_flashes
                WHERE session_id = \(sessionID) AND (shown_at IS NULL OR (\(!byScript) = 1 AND shown_at >= \(recent) AND shown_on = \(page)))
                ORDER BY id
                """
            ).map { row in Flash(Flash.Kind(rawValue: try row.get("kind", as: String.self)) ?? .notice, try row.get("message", as: String.self)) }
            if byScript {
                _ = try tx.execute("""
                    UPDATE session_flashes SET shown_at = \(now), shown_on = \(page) WHERE session_id = \(sessionID) AND shown_at IS NULL
                    """)
                _ = try tx.execute("DELETE FROM session_flashes WHERE session_id = \(sessionID) AND shown_at < \(recent)")
            } else {
                _ = try tx.execute("DELETE FROM session_flashes WHERE session_id = \(sessionID)")
            }
            return shown
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
        guard let session, !request.route.runsInline, !isFragmentRefresh else { return [] }
        do {
            return try SessionFlash.take(
                app.database, sessionID: session.id, page: String(request.head.target.prefix(2000)), byScript: isEnhanced, now: app.now)
        } catch {
            // A message is a courtesy: the page is worth more than it.
            app.logger.log(["level": "error", "msg": "taking flash messages failed", "cause": String(describing: error)])
            return []
        }
    }
}
