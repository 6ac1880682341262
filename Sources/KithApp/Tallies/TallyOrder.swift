import KithHTTP
import KithStorage
import KithTemplates

/// A person's own order of their tallies and the tallies they pinned. Both
/// are theirs alone: moving a shared tally or pinning it changes nothing
/// for anyone else it is shared with.
enum TallyOrderRoutes {
    /// Moves one tally `up`, `down` or `to` a position (1 is first): the
    /// Move up / Move down buttons post the first two, dragging the third.
    static let move = Route(.post, "/tallies/:tally/move")
    static let pin = Route(.post, "/tallies/:tally/pin")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(move) { context in try movePost(context) }
        Endpoint(pin) { context in
            let user = try context.requireUser()
            let tally = try context.load(Tally.self, parameter: "tally")
            guard let pinned = ["1": true, "0": false][context.request.form["pinned"] ?? ""] else {
                throw HTTPError.badRequest("Say whether to pin it: pinned=1 or pinned=0.")
            }
            try context.app.database.write { tx in
                try TallyStore.setPinned(tx, userID: user.id, tallyID: tally.id, pinned: pinned, now: context.app.now)
                try context.flash(
                    tx, pinned ? "\(tally.name) pinned: it is a shortcut of Kith on your home screen." : "\(tally.name) unpinned.")
            }
            return .redirect(to: TallyRoutes.show.path(tally.id))
        }
    }

    /// The pinned tallies, each opening as its large count.
    static let shortcuts: ManifestShortcuts.Provider = { user, context in
        try context.app.database.read { try TallyStore.pinned($0, userID: user.id) }.map {
            ManifestShortcuts.Shortcut(name: $0.name, url: "\(TallyRoutes.show.path($0.id))?standalone=1")
        }
    }

    /// Whether the viewer pinned it, and whether it was opened from its
    /// shortcut: only a pinned tally's page turns into the large count.
    static func pinState(_ model: inout TallyPages.FullModel, _ context: RequestContext, user: User) throws {
        let id = model.item.id
        model.pinned = try context.app.database.read { try TallyStore.isPinned($0, userID: user.id, tallyID: id) }
        model.standalone = model.pinned && context.request.query["standalone"] == "1"
    }

    static func movePost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let tally = try context.load(Tally.self, parameter: "tally")
        let form = context.request.form
        let app = context.app
        let message = try app.database.write { tx in
            let ids = try TallyStore.list(tx, viewerID: user.id, sort: .manual).map(\.id)
            guard let from = ids.firstIndex(of: tally.id) else { throw HTTPError.notFound() }
            let target: Int
            switch (form["direction"], form["to"]) {
            case ("up", nil): target = from - 1
            case ("down", nil): target = from + 1
            case (nil, let to?):
                guard let position = Int(to), position >= 1 else {
                    throw HTTPError.badRequest("Say where to move it: a position from 1 to \(ids.count).")
                }
                target = position - 1
            default: throw HTTPError.badRequest("Say where to move it: up, down, or to a position.")
            }
            let to = min(max(target, 0), ids.count - 1)
            var order = ids
            order.insert(order.remove(at: from), at: to)
            try TallyStore.setPositions(tx, userID: user.id, order: order)
            let message =
                to != from ? "\(tally.name) moved to \(to + 1) of \(ids.count)."
                : "\(tally.name) is already \(from == 0 ? "first" : "last")."
            // The page script says it in its own status line; a plain form
            // hears it on the page it lands on.
            if !context.isEnhanced { try context.flash(tx, message) }
            tx.afterCommit { TallyLive.publishListChanged(app, users: [user.id]) }
            return message
        }
        guard !context.isEnhanced else { return .text(message) }
        // Back to the row it moved, not the top of the page.
        return .redirect(to: "\(HomeRoutes.home.path())#\(FragmentID.tallyRow(tally.id).rawValue)")
    }
}

extension TallyStore {
    /// A tally the person has not placed (new, or newly shared) comes
    /// first, newest first; then their placed ones in their order.
    static func manualOrder(viewerID: Int64) -> SQL {
        """
        ORDER BY coalesce((SELECT p.position FROM tally_positions p WHERE p.user_id = \(viewerID) AND p.tally_id = t.id), -1),
            t.created_at DESC, t.id DESC
        """
    }

    /// Every tally's place for `userID`, as the whole list they saw, so
    /// a list that grew since is placed whole too.
    static func setPositions(_ tx: Transaction, userID: Int64, order: [Int64]) throws {
        try tx.execute("DELETE FROM tally_positions WHERE user_id = \(userID)")
        for (position, id) in order.enumerated() {
            try tx.execute("INSERT INTO tally_positions (user_id, tally_id, position) VALUES (\(userID), \(id), \(Int64(position)))")
        }
    }

    static func setPinned(_ tx: Transaction, userID: Int64, tallyID: Int64, pinned: Bool, now: Int64) throws {
        if pinned {
            try tx.execute("""
                INSERT INTO tally_pins (user_id, tally_id, pinned_at) VALUES (\(userID), \(tallyID), \(now))
                ON CONFLICT DO NOTHING
                """)
        } else {
            try tx.execute("DELETE FROM tally_pins WHERE user_id = \(userID) AND tally_id = \(tallyID)")
        }
    }

    static func isPinned(_ db: some Queryable, userID: Int64, tallyID: Int64) throws -> Bool {
        try db.queryValue("SELECT 1 FROM tally_pins WHERE user_id = \(userID) AND tally_id = \(tallyID)", as: Int64.self) != nil
    }

    /// The tallies `userID` pinned and still sees, newest first. A
    /// tally unshared from them keeps no shortcut: the access rule is the
    /// list's own.
    static func pinned(_ db: some Queryable, userID: Int64) throws -> [Tally] {
        try list(db, viewerID: userID, sort: .created).filter { try isPinned(db, userID: userID, tallyID: $0.id) }
    }
}
