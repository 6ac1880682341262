import KithStorage

/// What occasions tell people through the digest engine: contributors hear
/// that their gift was opened and of the finale, the host of gifts sent and
/// reports filed, the celebrant of new gifts on offer.
enum OccasionNews {
    static let giftSent = "occasion.gift-sent"
    static let report = "occasion.report"
    static let onOffer = "occasion.on-offer"
    static let unlocked = "occasion.unlocked"
    static let finale = "occasion.finale"

    static let kinds: [NotificationKind] = [
        NotificationKind(giftSent) { digest in
            let count = digest.events.count
            return "\(Notifications.listing(digest.actorNames)) sent \(count == 1 ? "a gift" : "gifts") in \(digest.scopeTitle)"
        },
        NotificationKind(report) { digest in
            "\(Notifications.listing(digest.actorNames)) reported \(Notifications.listing(digest.subjects)) in \(digest.scopeTitle)"
        },
        NotificationKind(onOffer) { digest in
            "New gifts on offer in \(digest.scopeTitle): from \(Notifications.listing(digest.subjects))"
        },
        NotificationKind(unlocked) { digest in
            "\(Notifications.listing(digest.actorNames)) unlocked your gift in \(digest.scopeTitle)"
        },
        NotificationKind(finale) { digest in
            "The finale in \(digest.scopeTitle): the badge is open!"
        },
    ]

    /// Records `kind` for the occasion's members in `roles` (or `recipients`).
    static func tell(
        _ tx: Transaction, _ app: KithApp, kind: String, scope: OccasionScope, subject: String,
        roles: [OccasionRole] = [], recipients: [Int64] = [], link: String? = nil
    ) throws {
        let everyone = try OccasionStore.memberIDs(tx, occasionID: scope.id, roles: roles) + recipients
        guard !everyone.isEmpty else { return }
        try app.notifications.record(
            Notifications.Event(
                kind: kind, scope: scope.topic, scopeTitle: scope.occasion.name, actorID: scope.viewer.userID,
                actorName: scope.viewer.displayName, subject: subject, link: link ?? OccasionRoutes.overview.path(scope.id),
                recipients: everyone),
            in: tx)
    }
}
