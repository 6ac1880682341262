import KithHTTP
import KithStorage
import KithTemplates

/// Occasions as one declared unit: its routes (with the host panel, media
/// and the keepsake), its scope, its two invite kinds, its live topic, its
/// dashboard section, what it says through notifications, and what deleting
/// an account means to it.
enum OccasionsFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("occasions")
        feature.endpoints = OccasionRoutes.endpoints(app)
        feature.scopes = [.members(of: OccasionScope.self, parameter: "occasion")]
        feature.invites = [
            InviteKind(
                name: OccasionRoutes.contributorInvite, describe: { id, db in try OccasionRoutes.preview(db, id, role: "contributor") },
                join: { tx, id, userID, app in try OccasionRoutes.join(tx, id, userID, app, role: .contributor) },
                standing: { id, userID, db in try OccasionRoutes.standing(db, id, userID, role: .contributor) }),
            InviteKind(
                name: OccasionRoutes.celebrantInvite, describe: { id, db in try OccasionRoutes.preview(db, id, role: "celebrant") },
                join: { tx, id, userID, app in try OccasionRoutes.join(tx, id, userID, app, role: .celebrant) },
                standing: { id, userID, db in try OccasionRoutes.standing(db, id, userID, role: .celebrant) }),
        ]
        feature.topics = [
            TopicKind("occasion") { key, context in
                guard let user = context.user, let id = Int64(key) else { return false }
                return try OccasionScope.load(id, for: user, in: context.app) != nil
            }
        ]
        feature.dashboard = DashboardSection(order: 10, stylesheets: ["css/occasions.css"]) { user, context in
            let listed = try context.app.database.read { try OccasionStore.occasions($0, userID: user.id) }
            return OccasionScreens.dashboardSection(listed.map { item in
                OccasionScreens.ListItem(
                    name: item.name, url: OccasionRoutes.overview.path(item.id),
                    detail: "\(item.kind.label) · \(TimeText.longDate(item.date)) · for \(item.celebrantName)",
                    roleLabel: item.role == .celebrant ? item.kind.celebrantLabel : item.role.label, isOpen: item.isOpen)
            }, newOccasion: OccasionRoutes.newOccasion.path())
        }
        feature.dashboard?.start = DashboardSections.Start(
            title: "Occasions", empty: "No occasions yet", action: "Plan one", href: OccasionRoutes.newOccasion.path()
        ) { user, context in try context.app.database.read { try OccasionStore.occasions($0, userID: user.id) }.isEmpty }
        feature.tasks.append(OccasionMedia.variantMaker(app).backgroundTask)
        feature.notifications = OccasionNews.kinds + OccasionThanks.newsKinds + ContributorTracker.notificationKinds
        // The hook keeps what it needs, not the app: the app holds the hook.
        let media = app.media
        let clock = app.configuration.clock
        let invites = app.invites
        feature.purge = { tx, userID in
            let memberOf = try OccasionStore.occasions(tx, userID: userID).map(\.id)
            // Their thank-yous first, so their files go in this transaction.
            try ThanksStore.purge(tx, userID: userID, media: media)
            let emptied = try OccasionStore.purge(tx, userID: userID)
            // Their proofs and uploads go now, not by the user row's cascade
            // later, so the files can be collected in this transaction.
            try OccasionMediaStore.deleteUploads(tx, uploaderID: userID, media: media)
            for occasionID in emptied {
                for kind in [OccasionRoutes.contributorInvite, OccasionRoutes.celebrantInvite] {
                    try invites.retire(tx, kind: kind, targetID: occasionID, now: clock())
                }
            }
            // The occasions still going lost a member, and perhaps dares,
            // gifts and a host: their open pages refetch.
            return memberOf.filter { !emptied.contains($0) }.map {
                LiveInvalidation(topic: OccasionRoutes.topic($0), fragments: [OccasionRoutes.liveFragment])
            }
        }
        return feature
    }
}
