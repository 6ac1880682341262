import KithHTTP

/// The inbox, its live count, and Web Push.
enum NotificationsFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("notifications")
        feature.endpoints = NotificationRoutes.endpoints(app) + PushRoutes.endpoints(app)
        feature.topics = [
            // A person's inbox topic is theirs alone.
            TopicKind("inbox") { key, context in
                guard let user = context.user else { return false }
                return key == String(user.id)
            }
        ]
        // Only the person's own inbox changes, and their pages are revoked.
        feature.purge = { tx, userID in
            try NotificationStore.purge(tx, userID: userID)
            return []
        }
        feature.viewerBadge = ViewerBadge(topics: { [Notifications.topic(for: $0.id)] }) { viewer, user, app in
            // A failed count shows no badge rather than failing the page.
            viewer.unreadCount = (try? app.database.read { try NotificationStore.unreadCount($0, userID: user.id) }) ?? 0
        }
        return feature
    }
}
