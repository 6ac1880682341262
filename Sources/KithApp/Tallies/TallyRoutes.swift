import Foundation
import KithHTTP
import KithStorage
import KithTemplates

/// Tallies: the home list (a dashboard section), the full-screen view, and
/// every change, each a form post that redirects back (or, from the page
/// script, answers with the fragment it changed). Access is decided by
/// `Tally.load` alone; what a role may do, by `TallyRole`.
enum TallyRoutes {
    static let new = Route(.get, "/tallies/new")
    static let create = Route(.post, "/tallies")
    /// The list lives on the home page.
    static let index = Route(.get, "/tallies")
    static let list = Route(.get, "/tallies/list")
    static let sort = Route(.post, "/tallies/sort")
    /// The page script's word that flashed rows were shown: a GET never
    /// writes, so being seen is said in a post of its own.
    static let seenChanges = Route(.post, "/tallies/seen")
    static let show = Route(.get, "/tallies/:tally")
    static let row = Route(.get, "/tallies/:tally/row")
    static let face = Route(.get, "/tallies/:tally/face")
    static let people = Route(.get, "/tallies/:tally/people")
    /// The full view's live fragments an event named, in one answer (`LiveFragments`).
    static let fragments = Route(.get, "/tallies/:tally/fragments")
    static let increment = Route(.post, "/tallies/:tally/increment")
    static let setCount = Route(.post, "/tallies/:tally/count")
    static let reset = Route(.post, "/tallies/:tally/reset")
    static let rename = Route(.post, "/tallies/:tally/rename")
    static let schedule = Route(.post, "/tallies/:tally/schedule")
    static let fireworks = Route(.post, "/tallies/:tally/fireworks")
    static let sharing = Route(.post, "/tallies/:tally/sharing")
    static let mute = Route(.post, "/tallies/:tally/mute")
    static let delete = Route(.post, "/tallies/:tally/delete")
    static let leave = Route(.post, "/tallies/:tally/leave")
    /// Undo of a reset or a deletion: not under `:tally`, since a deleted
    /// tally has no scope left to load; the journal entry decides.
    static let undo = Route(.post, "/tallies/undo/:undo")

    /// The list-level links every tally page may show.
    static let links = TallyPages.Links(
        home: HomeRoutes.home.path(), list: list.path(), sort: sort.path(), new: new.path(), create: create.path(),
        friends: FriendsFeature.page.path(), addFriend: FriendsFeature.add.path())

    static func paths(_ id: Int64) -> TallyPages.Paths {
        var paths = TallyPages.Paths(
            show: show.path(id), row: row.path(id), face: face.path(id), people: people.path(id), increment: increment.path(id),
            setCount: setCount.path(id), reset: reset.path(id), rename: rename.path(id), schedule: schedule.path(id),
            fireworks: fireworks.path(id), sharing: sharing.path(id), mute: mute.path(id), delete: delete.path(id), leave: leave.path(id))
        (paths.worker, paths.workerScope) = (PushRoutes.serviceWorker.path(), HomeRoutes.home.path())
        paths.goal = goal.path(id)
        (paths.move, paths.pin) = (TallyOrderRoutes.move.path(id), TallyOrderRoutes.pin.path(id))
        paths.fragments = fragments.path(id)
        return paths
    }

    static let changeKind = "tally.change"
    /// Undo journal kinds.
    static let resetKind = "tally.reset"
    static let deleteKind = "tally.delete"
    static let stylesheets = ["css/tallies.css"]
    static let scripts = ["js/tallies.js", "js/tally-goals.js", "js/tally-order.js"]

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(new) { context in
            let user = try context.requireUser()
            return try newPage(context, user: user, form: FormState())
        }
        Endpoint(create) { context in try createPost(context) }
        Endpoint(index) { _ in .redirect(to: HomeRoutes.home.path()) }
        Endpoint(list) { context in
            let user = try context.requireUser()
            let (items, sort) = try listItems(context, user: user)
            return context.app.page(TallyPages.list(items: items, sort: sort, links: links, csrfToken: context.csrfToken))
        }
        Endpoint(sort) { context in
            let user = try context.requireUser()
            guard let sort = TallyStore.Sort(rawValue: context.request.form["sort"] ?? "") else {
                throw HTTPError.badRequest("Choose how to sort: by last updated, by created or in your own order.")
            }
            let app = context.app
            try app.database.write { tx in
                try TallyStore.setSort(tx, userID: user.id, sort: sort)
                tx.afterCommit { TallyLive.publishListChanged(app, users: [user.id]) }
            }
            // Back to the list itself, not the top of the home page.
            return .redirect(to: HomeRoutes.home.path() + "#" + FragmentID.tallyList.rawValue)
        }
        Endpoint(seenChanges) { context in try seenPost(context) }
        TallyOrderRoutes.endpoints(app)
        Endpoint(show) { context in try fullPage(context) }
        Endpoint(row) { context in
            let (user, tally) = try seen(context)
            return context.app.page(TallyPages.row(item(tally, for: user, app: context.app), returnTo: links.home, csrfToken: context.csrfToken))
        }
        Endpoint(face) { context in
            let user = try context.requireUser()
            let model = try fullModel(context, user: user, tallyID: try context.request.parameter("tally"), people: false)
            return context.app.page(TallyPages.face(model, csrfToken: context.csrfToken))
        }
        Endpoint(fragments) { context in try liveFragments(context) }
        Endpoint(people) { context in
            let user = try context.requireUser()
            let model = try fullModel(context, user: user, tallyID: try context.request.parameter("tally"))
            return context.app.page(TallyPages.people(model, csrf: context.csrfToken))
        }
        Endpoint(increment) { context in
            let clientID = try ClientActions.id(in: context.request.form)
            do {
                return try change(context, allowed: \.canChangeCount, refusal: "This tally is view only.") { tx, tally, user, now in
                    // A tap sent again (an offline queue's retry) counted the first time.
                    guard try ClientActions.claim(tx, id: clientID, userID: user.id, kind: "tally.increment", now: now) else { return nil }
                    guard try TallyStore.increment(tx, id: tally.id, by: user.id, now: now) else {
                        throw HTTPError(.unprocessableContent, atMaximum)
                    }
                    return "+\(try TallyStore.step(tx, tallyID: tally.id))"
                }
            } catch let error as HTTPError where error.message == atMaximum && !context.isEnhanced {
                // The page script says it beside the count; a plain form lands
                // back at the row with it said at the top. The refused tap
                // rolled back, its id too, so the same tap may count later.
                let user = try context.requireUser()
                try context.app.database.write { tx in try context.flash(tx, atMaximum, kind: .error) }
                return try answer(context, user: user, tallyID: try context.request.parameter("tally"))
            }
        }
        Endpoint(setCount) { context in try setCountPost(context) }
        Endpoint(reset) { context in
            let (_, tally) = try seen(context)
            guard tally.role.canChangeCount else { throw HTTPError.forbidden("This tally is view only.") }
            if let page = context.unconfirmed(try confirmation(context, .reset, tally), cancel: show.path(tally.id)) { return page }
            return try change(context, allowed: \.canChangeCount, refusal: "This tally is view only.") { tx, tally, user, now in
                var snapshot = RowSnapshot()
                try snapshot.capture(tx, "tallies", where: "id = \(tally.id)")
                try TallyStore.setCount(tx, id: tally.id, to: 0, by: user.id, now: now, kind: .reset)
                try UndoJournal.record(
                    tx, userID: user.id, kind: resetKind, targetID: tally.id, message: "\(tally.name) reset to 0.", snapshot: snapshot, now: now)
                return "reset to 0"
            }
        }
        Endpoint(rename) { context in try renamePost(context) }
        Endpoint(schedule) { context in
            let form = context.request.form
            guard let schedule = TallyResetSchedule(rawValue: form["schedule"] ?? "") else {
                let user = try context.requireUser()
                let tally = try context.load(Tally.self, parameter: "tally")
                guard tally.role.canManage else { throw HTTPError.forbidden("Only the owner can change when this tally resets.") }
                return try fullPage(context, user: user, tally: tally, form: FormState(errors: ["schedule": "Choose when the tally resets."]))
            }
            return try change(context, allowed: \.canManage, refusal: "Only the owner can change when this tally resets.") { tx, tally, user, now in
                let zone = try TallyStore.ownerTimeZone(tx, tally: tally)
                let next = schedule.nextReset(after: now, timeZone: zone)
                try TallyStore.setSchedule(tx, id: tally.id, schedule: schedule, nextResetAt: next, timeZone: zone, by: user.id, now: now)
                return nil
            }
        }
        Endpoint(fireworks) { context in
            let on = context.request.form["fireworks"] == "1"
            return try change(context, allowed: \.canManage, refusal: "Only the owner can change the fireworks.") { tx, tally, user, now in
                try TallyStore.setFireworks(tx, id: tally.id, on: on, by: user.id, now: now)
                return nil
            }
        }
        Endpoint(sharing) { context in try sharingPost(context) }
        Endpoint(goal) { context in try goalPost(context) }
        Endpoint(mute) { context in
            let user = try context.requireUser()
            let tally = try context.load(Tally.self, parameter: "tally")
            let muting = context.request.form["muted"] != "0"
            let notifications = context.app.notifications
            try context.write(Tally.self, parameter: "tally") { tx, tally in
                let scope = Tally.topic(tally.id)
                if muting { try notifications.mute(scope: scope, for: user.id, in: tx) } else { try notifications.unmute(scope: scope, for: user.id, in: tx) }
            }
            return .redirect(to: show.path(tally.id))
        }
        Endpoint(delete) { context in
            let refusal = "Only the owner can delete this tally. You can leave it instead."
            let (_, tally) = try seen(context)
            guard tally.role.canManage else { throw HTTPError.forbidden(refusal) }
            if let page = context.unconfirmed(try confirmation(context, .delete, tally), cancel: show.path(tally.id)) { return page }
            let now = context.app.now
            try audienceChange(context, allowed: \.canManage, refusal: refusal) { tx, tally, user in
                // Parents first: the undo inserts in this order.
                var snapshot = RowSnapshot()
                try snapshot.capture(tx, "tallies", where: "id = \(tally.id)")
                try snapshot.capture(tx, "tally_shares", where: "tally_id = \(tally.id)")
                try snapshot.capture(tx, "tally_views", where: "tally_id = \(tally.id)")
                try snapshot.capture(tx, "tally_goals", where: "tally_id = \(tally.id)")
                try TallyStore.delete(tx, id: tally.id)
                try UndoJournal.record(
                    tx, userID: user.id, kind: deleteKind, targetID: tally.id, message: "\(tally.name) deleted.", snapshot: snapshot, now: now)
            }
            return .redirect(to: HomeRoutes.home.path())
        }
        Endpoint(undo) { context in try undoPost(context) }
        Endpoint(leave) { context in
            let (_, tally) = try seen(context)
            guard tally.role.canLeave else { throw HTTPError.forbidden("You own this tally: delete it instead of leaving.") }
            if let page = context.unconfirmed(try confirmation(context, .leave, tally), cancel: show.path(tally.id)) { return page }
            try audienceChange(context, allowed: \.canLeave, refusal: "You own this tally: delete it instead of leaving.") { tx, tally, user in
                try TallyStore.leave(tx, id: tally.id, userID: user.id)
            }
            return .redirect(to: HomeRoutes.home.path())
        }
    }

    // MARK: Destructive actions

    enum Destructive { case reset, delete, leave }

    /// What a destructive action on the tally will do, from the database
    /// now; the page's dialog and the handler's check use the same words.
    static func confirmation(_ context: RequestContext, _ action: Destructive, _ tally: Tally) throws -> Confirmation {
        let shared = try context.app.database.read { try TallyStore.sharedWith($0, tallyID: tally.id).count }
        return confirmation(action, name: tally.name, count: tally.count, owner: tally.owner.displayName, sharedWith: shared)
    }

    static func confirmation(_ action: Destructive, name: String, count: Int64, owner: String, sharedWith: Int) -> Confirmation {
        let friends = sharedWith == 1 ? "the friend it's shared with" : "the \(sharedWith) friends it's shared with"
        switch action {
        case .reset:
            return Confirmation(
                "Reset \(name) to 0?", "Its count of \(Numerals.arabic(count)) goes\(sharedWith == 0 ? "" : " for all \(sharedWith + 1) people who see it").",
                button: "Reset to 0")
        case .delete:
            return Confirmation(
                "Delete \(name)?",
                "Its count of \(Numerals.arabic(count)) and its settings go\(sharedWith == 0 ? "" : ", for you and \(friends)").",
                button: "Delete tally")
        case .leave:
            return Confirmation(
                "Leave \(name)?", "\(owner) keeps it; it leaves your list, and only \(owner) can share it with you again.", button: "Leave tally")
        }
    }

    /// Puts a reset count or a deleted tally back as it was, for the person
    /// who did it, within the window, if nobody changed things since.
    static func undoPost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let id = try context.request.parameter("undo", as: Int64.self)
        let app = context.app
        let now = app.now
        let tallyID = try app.database.write { tx -> Int64 in
            let entry = try UndoJournal.take(tx, id: id, userID: user.id, kinds: [resetKind, deleteKind], now: now)
            guard let was = entry.snapshot.rows("tallies").first, case .integer(let version)? = was["version"],
                case .text(let name)? = was["name"]
            else { throw UndoJournal.tooLate("nothing was kept to put back.") }
            let tallyID = entry.targetID
            if entry.kind == resetKind {
                // Only while the reset is still the last change: a count
                // someone changed since is theirs, not ours to overwrite.
                guard let tally = try Tally.load(tallyID, for: user, in: tx), tally.role.canChangeCount, tally.version == version + 1 else {
                    throw UndoJournal.tooLate("\(name) has changed since it was reset.")
                }
                try TallyStore.restoreCount(
                    tx, id: tallyID, count: was["count"] ?? .integer(0), updatedAt: was["updated_at"] ?? .integer(now),
                    updatedBy: was["updated_by"] ?? .null)
                // Putting the count back is a change of its own in the history.
                try TallyStore.recordHistory(tx, id: tallyID, kind: .undo, before: 0, by: user.id, now: now)
                try TallyStore.markSeen(tx, tallyID: tallyID, userID: user.id)
                let audience = try TallyStore.audience(tx, tallyID: tallyID)
                tx.afterCommit { TallyLive.publishChange(app, tallyID: tallyID, audience: audience, people: false) }
            } else {
                guard try TallyStore.name(tx, tallyID: tallyID) == nil else {
                    throw UndoJournal.tooLate("another tally has taken its place.")
                }
                // Shared with the same people, so each must still be the owner's friend.
                let friends = Set(try FriendsFeature.friends(of: user.id, in: tx).map(\.id))
                let shares = entry.snapshot.rows("tally_shares").compactMap { row -> Int64? in
                    if case .integer(let id)? = row["user_id"] { id } else { nil }
                }
                guard Set(shares).isSubset(of: friends) else {
                    throw UndoJournal.tooLate("someone \(name) was shared with is no longer your friend.")
                }
                try entry.snapshot.restore(tx)
                let audience = Set(try TallyStore.audience(tx, tallyID: tallyID))
                tx.afterCommit {
                    TallyLive.publishChange(app, tallyID: tallyID, audience: Array(audience))
                    TallyLive.publishListChanged(app, users: audience)
                }
            }
            return tallyID
        }
        return .redirect(to: show.path(tallyID))
    }

    /// The undo notice for the viewer's own latest reset or deletion.
    static func undoNotice(_ db: some Queryable, app: KithApp, userID: Int64, kind: String, tallyID: Int64? = nil) throws -> Confirm.UndoNotice? {
        try UndoJournal.notice(db, userID: userID, kinds: [kind], targetID: tallyID, now: app.now) { undo.path($0) }
    }

    // MARK: Live

    /// The full-screen view's fragments for one tally.
    static func faceFragments(_ id: Int64) -> [FragmentID] { [.tallyFace(id), .tallyPeople(id), .tallyHistory(id)] }
    /// What a change of the count, name or settings changes: the people
    /// table only changes when the audience does (`audienceChange`).
    static func countFragments(_ id: Int64) -> [FragmentID] { [.tallyFace(id), .tallyHistory(id)] }

    /// `GET /tallies/:tally/fragments?fragments=…`: the named fragments of
    /// the full view for this viewer, from one scope load and one model,
    /// each exactly what its own route answers.
    static func liveFragments(_ context: RequestContext) throws -> Response {
        let (user, tally) = try seen(context)
        let ids = try LiveFragments.requested(context.request, known: faceFragments(tally.id))
        let wantsPeople = ids.contains(.tallyPeople(tally.id))
        let model =
            wantsPeople || ids.contains(.tallyFace(tally.id)) ? try fullModel(context, user: user, tallyID: tally.id, people: wantsPeople) : nil
        var parts: [HTML] = []
        for id in ids {
            if id == .tallyHistory(tally.id) {
                parts.append(TallyHistoryPages.section(try TallyHistoryRoutes.model(context, user: user, tally: tally), csrf: context.csrfToken))
            } else if let model {
                parts.append(id == .tallyFace(tally.id) ? TallyPages.face(model, csrfToken: context.csrfToken) : TallyPages.people(model, csrf: context.csrfToken))
            }
        }
        return context.app.page("\(parts)")
    }

    // MARK: Changing a tally

    /// The common shape of a change: load (404 for outsiders), check the
    /// role (403 with a gentle message for friends who may not), write,
    /// record who changed it for the digest, publish after commit, and
    /// answer with the changed fragment (script) or a redirect (form).
    /// `body` returns what to tell friends ("+1"), or nil for changes not
    /// worth a notification.
    static func change(
        _ context: RequestContext, allowed: KeyPath<TallyRole, Bool>, refusal: String,
        _ body: (Transaction, Tally, User, Int64) throws -> String?
    ) throws -> Response {
        let user = try context.requireUser()
        let tally = try context.load(Tally.self, parameter: "tally")
        guard tally.role[keyPath: allowed] else { throw HTTPError.forbidden(refusal) }
        let app = context.app
        let now = app.now
        try context.write(Tally.self, parameter: "tally") { tx, tally in
            guard tally.role[keyPath: allowed] else { throw HTTPError.forbidden("You can no longer change this tally.") }
            let subject = try body(tx, tally, user, now)
            let audience = try TallyStore.audience(tx, tallyID: tally.id)
            if let subject {
                let name = try TallyStore.name(tx, tallyID: tally.id) ?? tally.name
                try app.notifications.record(
                    Notifications.Event(
                        kind: changeKind, scope: Tally.topic(tally.id), scopeTitle: name, actorID: user.id, actorName: user.displayName,
                        subject: subject, link: show.path(tally.id), recipients: audience),
                    in: tx)
            }
            tx.afterCommit { TallyLive.publishChange(app, tallyID: tally.id, audience: audience, people: false) }
        }
        return try answer(context, user: user, tallyID: tally.id)
    }

    /// A change to who sees the tally (sharing, leaving, deleting): those
    /// who still see it refresh it, and the lists of those who gained or
    /// lost it refresh whole.
    static func audienceChange(
        _ context: RequestContext, allowed: KeyPath<TallyRole, Bool>, refusal: String, _ body: (Transaction, Tally, User) throws -> Void
    ) throws {
        let user = try context.requireUser()
        let tally = try context.load(Tally.self, parameter: "tally")
        guard tally.role[keyPath: allowed] else { throw HTTPError.forbidden(refusal) }
        let app = context.app
        try context.write(Tally.self, parameter: "tally") { tx, tally in
            guard tally.role[keyPath: allowed] else { throw HTTPError.forbidden("You can no longer change this tally.") }
            let before = Set(try TallyStore.audience(tx, tallyID: tally.id))
            try body(tx, tally, user)
            let after = Set(try TallyStore.audience(tx, tallyID: tally.id))
            // Unshared, left or deleted: whoever no longer sees it stops hearing of it.
            app.revoke(before.subtracting(after), topic: Tally.topic(tally.id), after: tx)
            tx.afterCommit {
                TallyLive.publishChange(app, tallyID: tally.id, audience: Array(after))
                TallyLive.publishListChanged(app, users: before.symmetricDifference(after))
            }
        }
    }

    /// From the page script (`RequestContext.isEnhanced`), the fragment the form
    /// named, rendered fresh; from a plain form, a redirect to where it was.
    static func answer(_ context: RequestContext, user: User, tallyID: Int64) throws -> Response {
        let form = context.request.form
        let back = show.path(tallyID)
        if context.isEnhanced,
            let tally = try context.app.database.read({ try TallyStore.tally($0, id: tallyID, viewerID: user.id) })
        {
            switch form["fragment"] {
            case "row": return context.app.page(TallyPages.row(item(tally, for: user, app: context.app), returnTo: links.home, csrfToken: context.csrfToken))
            case "face":
                return context.app.page(TallyPages.face(try fullModel(context, user: user, tallyID: tally.id), csrfToken: context.csrfToken))
            default: break
            }
        }
        let home = HomeRoutes.home.path()
        // Back at the row that was tapped, not the top of the list.
        return .redirect(to: form["return"] == home ? home + "#" + FragmentID.tallyRow(tallyID).rawValue : back)
    }

    static let atMaximum = "This tally is at its maximum, 999,999,999, and can't count any higher."

    static func setCountPost(_ context: RequestContext) throws -> Response {
        let raw = (context.request.form["count"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let count = Int64(raw), (0...TallyStore.maximumCount).contains(count) else {
            let user = try context.requireUser()
            let tally = try context.load(Tally.self, parameter: "tally")
            guard tally.role.canChangeCount else { throw HTTPError.forbidden("This tally is view only.") }
            return try fullPage(
                context, user: user, tally: tally,
                form: FormState(values: ["count": raw], errors: ["count": "Enter a whole number from 0 to 999,999,999."]))
        }
        return try change(context, allowed: \.canChangeCount, refusal: "This tally is view only.") { tx, tally, user, now in
            try TallyStore.setCount(tx, id: tally.id, to: count, by: user.id, now: now)
            return "set to \(Numerals.arabic(count))"
        }
    }

    static func renamePost(_ context: RequestContext) throws -> Response {
        let raw = context.request.form["name"] ?? ""
        let (name, error) = checkName(context.request.form)
        if let error {
            let user = try context.requireUser()
            let tally = try context.load(Tally.self, parameter: "tally")
            guard tally.role.canManage else { throw HTTPError.forbidden("Only the owner can rename this tally.") }
            return try fullPage(context, user: user, tally: tally, form: FormState(values: ["name": raw], errors: ["name": error]))
        }
        return try change(context, allowed: \.canManage, refusal: "Only the owner can rename this tally.") { tx, tally, user, now in
            try TallyStore.rename(tx, id: tally.id, to: name, by: user.id, now: now)
            return "renamed it"
        }
    }

    static func sharingPost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let tally = try context.load(Tally.self, parameter: "tally")
        guard tally.role.canManage else { throw HTTPError.forbidden("Only the owner can share this tally.") }
        let friends = try context.app.database.read { try FriendsFeature.friends(of: user.id, in: $0) }
        let shares: [Int64: TallyRole]
        do {
            shares = try parseShares(context.request.form, friends: friends)
        } catch let error as ShareError {
            return try fullPage(context, user: user, tally: tally, form: FormState(errors: ["share": error.message]))
        }
        let losing = try context.app.database.read { try TallyStore.sharedWith($0, tallyID: tally.id) }.filter { shares[$0.person.id] == nil }
        if !losing.isEmpty {
            let names = Notifications.listing(losing.map(\.person.displayName), limit: 20)
            let stop = Confirmation(
                "Stop sharing \(tally.name) with \(names)?",
                "It leaves \(losing.count == 1 ? "their list" : "the lists of all \(losing.count)"); you can share it again later.",
                button: "Stop sharing")
            if let page = context.unconfirmed(stop, cancel: show.path(tally.id)) { return page }
        }
        try audienceChange(context, allowed: \.canManage, refusal: "Only the owner can share this tally.") { tx, tally, _ in
            try TallyStore.setShares(tx, tallyID: tally.id, shares: shares)
        }
        return .redirect(to: show.path(tally.id))
    }

    struct ShareError: Error {
        var message: String
    }

    /// `share-<friend id>` = none, view or edit, for friends only.
    static func parseShares(_ form: FormData, friends: [Tally.Person]) throws -> [Int64: TallyRole] {
        let friendIDs = Set(friends.map(\.id))
        var shares: [Int64: TallyRole] = [:]
        for name in form.names where name.hasPrefix("share-") {
            guard let id = Int64(name.dropFirst("share-".count)), friendIDs.contains(id) else {
                throw ShareError(message: "You can only share a tally with your friends.")
            }
            switch form[name] {
            case "none": continue
            case "view": shares[id] = .view
            case "edit": shares[id] = .edit
            default: throw ShareError(message: "Choose not shared, can view or can edit for each friend.")
            }
        }
        return shares
    }

    // MARK: Creating

    static func createPost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let once = try context.onceForm()
        let form = context.request.form
        var state = FormState(values: [
            "name": form["name"] ?? "", "count": (form["count"] ?? "").trimmingCharacters(in: .whitespaces),
            "schedule": form["schedule"] ?? "off", "fireworks": form["fireworks"] == "on" ? "on" : "off",
        ])
        for name in form.names where name.hasPrefix("share-") { state.values[name] = form[name] }
        let (name, nameError) = checkName(form)
        state.errors["name"] = nameError
        let countText = state.values["count"]!.isEmpty ? "0" : state.values["count"]!
        let count = Int64(countText).flatMap { (0...TallyStore.maximumCount).contains($0) ? $0 : nil }
        if count == nil { state.errors["count"] = "Enter a whole number from 0 to 999,999,999." }
        let schedule = TallyResetSchedule(rawValue: state.values["schedule"]!)
        if schedule == nil { state.errors["schedule"] = "Choose when the tally resets." }
        let friends = try context.app.database.read { try FriendsFeature.friends(of: user.id, in: $0) }
        var shares: [Int64: TallyRole] = [:]
        do {
            shares = try parseShares(form, friends: friends)
        } catch let error as ShareError {
            state.errors["share"] = error.message
        }
        guard state.isValid, let count, let schedule else {
            return try newPage(context, user: user, form: state, status: .unprocessableContent)
        }
        let app = context.app
        let now = app.now
        return .redirect(to: try app.database.write { tx in
            try once.run(tx) {
                let draft = TallyStore.Draft(
                    name: name, count: count, fireworks: state.values["fireworks"] == "on", schedule: schedule,
                    nextResetAt: schedule.nextReset(after: now, timeZone: user.timeZone), timeZone: user.timeZone, shares: shares)
                let id = try TallyStore.create(tx, ownerID: user.id, draft: draft, now: now)
                tx.afterCommit { TallyLive.publishListChanged(app, users: Set(shares.keys).union([user.id])) }
                return show.path(id)
            }
        })
    }

    /// The tally's name as it will be stored, or the message for beside the field.
    static func checkName(_ form: FormData) -> (name: String, error: String?) {
        var reader = FormReader(form)
        let name = reader.line("name", label: "the tally name", max: TallyStore.maximumNameLength, required: true)
        return (name ?? "", reader.state.errors["name"])
    }

    static func newPage(_ context: RequestContext, user: User, form: FormState, status: HTTPStatus = .ok) throws -> Response {
        var form = form
        form.onceToken = context.onceToken()
        var page = context.pageContext()
        page.stylesheets = stylesheets
        let friends = try context.app.database.read { try FriendsFeature.friends(of: user.id, in: $0) }
        let shares = friends.map { TallyPages.Share(person: person($0, app: context.app), permission: "none") }
        return context.app.page(TallyPages.new(context: page, form: form, friends: shares, schedules: scheduleOptions, links: links), status: status)
    }

    static let scheduleOptions: [(value: String, label: String)] = TallyResetSchedule.allCases.map { ($0.rawValue, $0.label) }

    // MARK: Seen

    /// Flashed rows the page showed, as `tally=ID:VERSION` fields: each is
    /// recorded as seen up to that version (never past what it is now, and
    /// only for tallies the viewer can see), so it does not flash again.
    static func seenPost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let shown: [(Int64, Int64)] = context.request.form.values("tally").prefix(200).compactMap { pair in
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let id = Int64(parts[0]), let version = Int64(parts[1]) else { return nil }
            return (id, version)
        }
        guard !shown.isEmpty else { throw HTTPError.badRequest("Say which tallies were shown: tally=ID:VERSION.") }
        try context.app.database.write { tx in
            for (id, version) in shown where try Tally.load(id, for: user, in: tx) != nil {
                try TallyStore.markSeen(tx, tallyID: id, userID: user.id, upTo: version)
            }
        }
        return Response(status: .noContent)
    }

    // MARK: Reading

    /// The signed-in viewer's tally as it is now.
    static func seen(_ context: RequestContext) throws -> (User, Tally) {
        let user = try context.requireUser()
        return (user, try context.load(Tally.self, parameter: "tally"))
    }

    /// The viewer's list in their sort, read in one snapshot.
    static func listItems(_ context: RequestContext, user: User) throws -> ([TallyPages.Item], TallyPages.Sort) {
        let app = context.app
        let (tallies, sort, goals) = try app.database.read { db in
            let sort = try TallyStore.sort(db, userID: user.id)
            let tallies = try TallyStore.list(db, viewerID: user.id, sort: sort)
            return (tallies, sort, try TallyGoals.progress(db, tallyIDs: tallies.map(\.id), now: app.now))
        }
        let items = tallies.map { item($0, for: user, app: app, goal: .some(goalView(goals[$0.id]))) }
        return (items, TallyPages.Sort(rawValue: sort.rawValue) ?? .updated)
    }

    static func fullPage(_ context: RequestContext, form: FormState = FormState()) throws -> Response {
        let user = try context.requireUser()
        let tally = try context.load(Tally.self, parameter: "tally")
        return try fullPage(context, user: user, tally: tally, form: form)
    }

    static func fullPage(_ context: RequestContext, user: User, tally loaded: Tally, form: FormState) throws -> Response {
        // The cursor first, then everything the page shows in one snapshot.
        var page = context.pageContext(topics: [Tally.topic(loaded.id)])
        page.stylesheets = stylesheets
        page.scripts = scripts
        var model = try fullModel(context, user: user, tallyID: loaded.id)
        model.form = form
        model.history = TallyHistoryPages.section(try TallyHistoryRoutes.model(context, user: user, tally: loaded), csrf: context.csrfToken)
        try TallyOrderRoutes.pinState(&model, context, user: user)
        return context.app.page(TallyPages.full(context: page, model: model), status: form.isValid ? .ok : .unprocessableContent)
    }

    /// The full view's model, read in one snapshot with the tally itself
    /// (which is where access is decided: 404 for anyone it is not shared with).
    /// `people` false leaves out the people table's rows (everyone it is
    /// shared with, and the owner's friends): the face shows none of them, and
    /// reading them made every viewer's refetch grow with the audience.
    static func fullModel(_ context: RequestContext, user: User, tallyID: Int64, people: Bool = true) throws -> TallyPages.FullModel {
        let app = context.app
        let snapshot = try app.database.read {
            db -> (Tally, [(person: Tally.Person, role: TallyRole)], Int, [Tally.Person], String, Bool, Confirm.UndoNotice?)? in
            guard let tally = try Tally.load(tallyID, for: user, in: db) else { return nil }
            let sharedWith = people ? try TallyStore.sharedWith(db, tallyID: tally.id) : []
            return (
                tally,
                sharedWith,
                people ? sharedWith.count : try TallyStore.shareCount(db, tallyID: tally.id),
                people && tally.role.canManage ? try FriendsFeature.friends(of: user.id, in: db) : [],
                try TallyStore.ownerTimeZone(db, tally: tally),
                try app.notifications.isMuted(scope: Tally.topic(tally.id), for: user.id, in: db),
                try undoNotice(db, app: app, userID: user.id, kind: resetKind, tallyID: tally.id)
            )
        }
        guard let (tally, sharedWith, shareCount, friends, zone, muted, undoNotice) = snapshot else { throw HTTPError.outsideScope() }
        let shares = Dictionary(uniqueKeysWithValues: sharedWith.map { ($0.person.id, $0.role) })
        let now = app.now
        var updated = "Updated \(TimeText.relative(tally.updatedAt, now: now))"
        if let by = tally.updatedBy {
            updated += " by \(by.id == user.id ? "you" : by.displayName)"
        } else if tally.updatedByFormerMember {
            updated += " by \(FormerMember.phrase)"
        } else if tally.version > 1 {
            updated += " by Kith"
        }
        var model = TallyPages.FullModel(
            item: item(tally, for: user, app: app), canManage: tally.role.canManage, schedule: tally.schedule.rawValue,
            schedules: scheduleOptions, nextReset: tally.nextResetAt.map { "Next reset: \(TimeText.local($0, zone: zone, withYear: true).human) (\(zone))." },
            updated: updated,
            people: sharedWith.map { TallyPages.Share(person: person($0.person, app: app), permission: $0.role.rawValue) },
            friends: friends.map { TallyPages.Share(person: person($0, app: app), permission: shares[$0.id]?.rawValue ?? "none") },
            muted: muted, links: links,
            confirm: [.reset, .delete, .leave].map {
                confirmation($0, name: tally.name, count: tally.count, owner: tally.owner.displayName, sharedWith: shareCount)
            },
            undo: undoNotice)
        try TallyHistoryRoutes.decorate(&model, context: context, tally: tally)
        return model
    }

    // MARK: Template models

    /// `goal`, when the caller read it with others, spares a read of its own.
    static func item(_ tally: Tally, for user: User, app: KithApp, goal: TallyPages.Goal?? = nil) -> TallyPages.Item {
        var item = TallyPages.Item(
            id: tally.id, name: tally.name, count: tally.count, style: Numerals.Style(rawValue: user.numberStyle.rawValue) ?? .arabic,
            owner: person(tally.owner, app: app), isOwner: tally.role == .owner, canChangeCount: tally.role.canChangeCount,
            flashBy: tally.changedByOtherSinceSeen.map { person($0, app: app) }, seenURL: seenChanges.path(), fireworks: tally.fireworks,
            createdAt: tally.createdAt, updatedAt: tally.updatedAt, version: tally.version, paths: paths(tally.id))
        item.goal = goal ?? goalView(tally, app: app)
        item.step = tally.step
        return item
    }

    static func person(_ person: Tally.Person, app: KithApp) -> TallyPages.Person {
        person.shown(in: app)
    }
}
