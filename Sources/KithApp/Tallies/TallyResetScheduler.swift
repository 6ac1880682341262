import KithHTTP
import KithStorage

/// Resets tallies at their owners' local midnights, whether or not anyone
/// has Kith open. Each tally stores the instant of its next reset; a tick
/// resets every tally whose instant has passed and, in the same statement,
/// stores the next instant computed from now, not from the missed one. So a
/// reset happens once per period, and a server that was down over several
/// midnights resets each tally once when it comes back, not once per
/// period missed.
///
/// The thread ticks every few seconds (and once at start); tests call
/// `tick(now:)` with a clock of their own instead of waiting.
///
/// Exactly once with several instances, and no lease needed: every instance
/// ticks, but a batch is found and reset inside one write transaction, which
/// on PostgreSQL holds the write lock all instances share, and the reset
/// moves the tally's next instant past now. A tick waiting for the lock then
/// finds nothing due; an instance killed mid-batch rolls it back, and the next
/// tick anywhere resets those tallies. The live refresh after the commit is
/// best effort, as for any write.
final class TallyResetScheduler: Sendable {
    static let interval = 15.0
    /// Tallies reset per write transaction, so a tick after a long outage
    /// never holds the writer for long.
    static let batch = 200

    /// Unowned: the app holds the scheduler (through its background
    /// tasks) and outlives it.
    private unowned let app: KithApp

    init(app: KithApp) {
        self.app = app
    }

    /// Applies every reset due at `now`, then moves the next reset of
    /// tallies whose owner changed time zone to midnight in the new zone;
    /// returns the tallies it reset.
    @discardableResult
    func tick(now: Int64) throws -> [Int64] {
        let reset = try applyDue(now: now)
        var moved = 0
        repeat {
            moved = try app.database.write { tx in
                let tallies = try TallyStore.rezoned(tx, limit: Self.batch)
                for tally in tallies {
                    let next = tally.schedule.nextReset(after: now, timeZone: tally.timeZone)
                    try TallyStore.rezone(tx, id: tally.id, nextResetAt: next, timeZone: tally.timeZone)
                }
                return tallies.count
            }
        } while moved == Self.batch
        return reset
    }

    private func applyDue(now: Int64) throws -> [Int64] {
        var all: [Int64] = []
        while true {
            let done = try app.database.write { tx -> (found: Int, reset: [(Int64, [Int64])]) in
                let due = try TallyStore.dueResets(tx, now: now, limit: Self.batch)
                var reset: [(Int64, [Int64])] = []
                for tally in due {
                    let next = tally.schedule.nextReset(after: now, timeZone: tally.timeZone)
                    try TallyStore.applyReset(tx, id: tally.id, nextResetAt: next, timeZone: tally.timeZone, now: now)
                    reset.append((tally.id, try TallyStore.audience(tx, tallyID: tally.id)))
                }
                let app = self.app
                tx.afterCommit {
                    for (id, audience) in reset { TallyLive.publishChange(app, tallyID: id, audience: audience, people: false) }
                }
                return (due.count, reset)
            }
            all += done.reset.map(\.0)
            if done.found < Self.batch { return all }
        }
    }

    /// The thread that ticks every `interval` seconds, once at start.
    func periodicTask() -> PeriodicTask {
        PeriodicTask("tally-resets", every: Self.interval) { [self] in
            do {
                try tick(now: app.now)
            } catch {
                app.logger.log(["level": "error", "msg": "tally reset tick failed", "cause": String(describing: error)])
            }
        }
    }
}
