import KithHTTP
import KithStorage

/// Actions a page may send more than once: a tally tap or a plate spot made
/// offline waits in the browser and is sent when the network returns, and
/// sent again when an answer was lost. The page names each action with a
/// random 128-bit id (`client_id`, 32 lowercase hex digits); the route reads
/// it before its write and claims it inside the write, so the record and the
/// action commit or roll back together and a second arrival changes nothing.
/// Without an id a request acts as it always did.
enum ClientActions {
    static let field = "client_id"
    /// Far longer than any page keeps an action queued.
    static let kept: Int64 = 7 * 24 * 60 * 60
    static let sweepInterval: Double = 60 * 60

    /// The form's id, nil when it sends none, a 400 when it is malformed.
    static func id(in form: FormData) throws -> String? {
        guard let raw = form[field] else { return nil }
        let valid = raw.utf8.count == 32 && raw.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        guard valid else {
            throw HTTPError.badRequest(
                "This tap came with a garbled id, so it wasn't counted. Reload the page and try again.",
                cause: ClientActionError.malformed(length: raw.utf8.count))
        }
        return raw
    }

    /// Records the action under `id` for this person, inside the action's own
    /// transaction: true when it is new (do it), false when it was done
    /// before (do nothing and answer with the current state). An action with
    /// no id is always new.
    static func claim(_ tx: Transaction, id: String?, userID: Int64, kind: String, now: Int64) throws -> Bool {
        guard let id else { return true }
        return try tx.execute("""
            INSERT INTO client_actions (user_id, client_id, kind, done_at) VALUES (\(userID), \(id), \(kind), \(now))
            ON CONFLICT (user_id, client_id) DO NOTHING
            """) == 1
    }

    /// Forgets ids older than `kept`; the number forgotten.
    @discardableResult
    static func sweep(_ database: Database, now: Int64) throws -> Int {
        try database.write { tx in try tx.execute("DELETE FROM client_actions WHERE done_at < \(now - kept)") }
    }

    /// The hourly sweep, started with the server.
    static func sweeper(_ app: KithApp) -> PeriodicTask {
        PeriodicTask("client-actions", every: sweepInterval) { [unowned app] in
            do {
                try sweep(app.database, now: app.now)
            } catch {
                app.logger.log(["level": "error", "msg": "client action sweep failed", "cause": String(describing: error)])
            }
        }
    }
}

enum ClientActionError: Error {
    case malformed(length: Int)
}
