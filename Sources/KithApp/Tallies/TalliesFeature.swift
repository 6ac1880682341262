import KithHTTP
import KithTemplates

/// Tallies as one declared unit: routes (with friends, for now), the tally
/// scope, the live topics of a tally and of a person's list, the change
/// digest, the dashboard section, the purge and the reset scheduler.
enum TalliesFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("tallies")
        feature.endpoints = TallyRoutes.endpoints(app)
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
        feature.purge = { tx, userID in
            // Their tallies left the lists of those they were shared with.
            try TallyStore.purge(tx, userID: userID).sorted().map { LiveInvalidation(topic: Tally.listTopic($0), fragments: [.tallyList]) }
        }
        feature.dashboard = DashboardSection(
            order: 30, topics: { [Tally.listTopic($0.id)] }, stylesheets: TallyRoutes.stylesheets, scripts: TallyRoutes.scripts
        ) { user, context in
            let (items, sort) = try TallyRoutes.listItems(context, user: user)
            return TallyPages.section(items: items, sort: sort, links: TallyRoutes.links, csrfToken: context.csrfToken)
        }
        feature.tasks = [TallyResetScheduler(app: app).periodicTask().backgroundTask]
        return feature
    }
}
