import KithHTTP
import KithStorage
import KithTemplates

/// Tallies as one declared unit: routes, the tally scope, the live topics of
/// a tally and of a person's list, the change digest, the dashboard section,
/// the purge, what a friendship ending means and the reset scheduler.
enum TalliesFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("tallies")
        feature.endpoints = TallyRoutes.endpoints(app) + TallyHistoryRoutes.endpoints(app)
        feature.scopes = [.members(of: Tally.self, parameter: "tally")]
        feature.topics = [
            TopicKind("tally") { key, context in
                guard let user = context.user, let id = Int64(key) else { return false }
                return try Tally.load(id, for: user, in: context.app) != nil
            },
            TopicKind("tallies") { key, context in
                guard let user = context.user else { return false }
                return key == String(user.id)
            },
        ]
        feature.notifications = [
            NotificationKind(TallyRoutes.changeKind) { digest in
                "\(Notifications.listing(digest.actorNames)) changed \(digest.scopeTitle)"
            }
        ]
        feature.purge = { [unowned app] tx, userID in
            // Their tallies go with them: anyone who has one open is told it
            // ended, and it leaves the lists of those it was shared with.
            let deleted = try TallyStore.purge(tx, userID: userID)
            for (id, audience) in deleted { app.revoke(audience, topic: Tally.topic(id), after: tx) }
            return Set(deleted.values.joined()).sorted().map { LiveInvalidation(topic: Tally.listTopic($0), fragments: [.tallyList]) }
        }
        feature.events = [EventHandler(FriendsFeature.friendshipEnded) { tx, userID, friendID in try friendshipEnded(app, tx, userID, friendID) }]
        feature.dashboard = DashboardSection(
            order: 30, topics: { [Tally.listTopic($0.id)] }, stylesheets: TallyRoutes.stylesheets, scripts: TallyRoutes.scripts
        ) { user, context in
            let (items, sort) = try TallyRoutes.listItems(context, user: user)
            let undo = try context.app.database.read {
                try TallyRoutes.undoNotice($0, app: context.app, userID: user.id, kind: TallyRoutes.deleteKind)
            }
            return TallyPages.section(items: items, sort: sort, links: TallyRoutes.links, csrfToken: context.csrfToken, undo: undo)
        }
        feature.shortcuts = TallyOrderRoutes.shortcuts
        // A deletion still to undo keeps the whole section, where its notice is.
        feature.dashboard?.start = DashboardSections.Start(
            title: "Tallies", empty: "No tallies yet", action: "Start one", href: TallyRoutes.new.path()
        ) { user, context in
            try context.app.database.read { db in
                try TallyStore.list(db, viewerID: user.id, sort: .created).isEmpty
                    && TallyRoutes.undoNotice(db, app: context.app, userID: user.id, kind: TallyRoutes.deleteKind) == nil
            }
        }
        // The undo journal is Core's, swept from here because Core runs no
        // threads of its own; any feature that records in it would do.
        feature.tasks = [TallyResetScheduler(app: app).periodicTask().backgroundTask, UndoJournal.sweeper(app).backgroundTask]
        return feature
    }

    /// Tallies are shared between friends only, so parting stops every tally
    /// shared between the two, both ways. Of the two, whoever is not a
    /// tally's owner lost it: their streams on it end. Everyone who still
    /// sees it refetches it, and both lists refresh whole.
    static func friendshipEnded(_ app: KithApp, _ tx: Transaction, _ userID: Int64, _ friendID: Int64) throws -> [LiveInvalidation] {
        let pair: Set<Int64> = [userID, friendID]
        var invalidations: [LiveInvalidation] = []
        for id in try TallyStore.unshare(tx, between: userID, and: friendID) {
            let audience = try TallyStore.audience(tx, tallyID: id)
            app.revoke(pair.subtracting(audience), topic: Tally.topic(id), after: tx)
            invalidations += TallyLive.change(tallyID: id, audience: audience + pair)
        }
        return invalidations + TallyLive.listChanged(users: pair)
    }
}
