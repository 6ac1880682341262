import KithHTTP
import KithStorage
import KithTemplates

/// The host's view of who has joined and what each contributor has written,
/// and the nudge: an inbox entry (and a push, through the notification
/// digests) for a quiet contributor, at most once a day per person.
enum ContributorTracker {
    static let nudge = Route(.post, "/occasions/:occasion/host/members/:member/nudge")
    static let nudgeKind = "occasion.nudge"
    static let nudgeEvery: Int64 = 86_400

    static let notificationKinds: [NotificationKind] = [
        NotificationKind(nudgeKind) { digest in
            "\(Notifications.listing(digest.actorNames)) is hoping for \(Notifications.listing(digest.subjects)) from you in \(digest.scopeTitle)"
        }
    ]

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(nudge) { context in try sendNudge(context) }
    }

    /// What a contributor has still to write, as a nudge names it; nil when
    /// they have written both.
    static func missing(_ progress: OccasionBookStore.Progress?) -> String? {
        let gift = progress?.giftState == nil || progress?.giftState == .draft
        let dare = progress?.hasDare != true
        switch (gift, dare) {
        case (true, true): return "a gift and a dare"
        case (true, false): return "a gift"
        case (false, true): return "a dare"
        case (false, false): return nil
        }
    }

    static func sendNudge(_ context: RequestContext) throws -> Response {
        let scope = try HostRoutes.host(context)
        let userID = try context.request.parameter("member", as: Int64.self)
        let app = context.app
        let zone = context.user?.timeZone ?? "UTC"
        let outcome = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope -> String in
            try scope.require(\.canManage, "Only the host can do that.")
            guard let member = try OccasionStore.membership(tx, occasionID: scope.id, userID: userID), member.role == .contributor else {
                throw HTTPError.notFound()
            }
            guard let missing = missing(try OccasionBookStore.progress(tx, occasionID: scope.id)[userID]) else {
                throw HTTPError(.conflict, "\(member.displayName) has already sent a gift and written a dare. Nothing to nudge about.")
            }
            if let last = try OccasionBookStore.lastNudge(tx, occasionID: scope.id, userID: userID), app.now < last + nudgeEvery {
                throw HTTPError(
                    .tooManyRequests,
                    "You nudged \(member.displayName) \(TimeText.relative(last, now: app.now)); one nudge a day is plenty. You can nudge them again from \(TimeText.local(last + nudgeEvery, zone: zone).human).")
            }
            try OccasionBookStore.recordNudge(tx, occasionID: scope.id, userID: userID, now: app.now)
            try OccasionNews.tell(
                tx, app, kind: nudgeKind, scope: scope, subject: missing, recipients: [userID],
                link: missing == "a dare" ? OccasionRoutes.dare.path(scope.id) : OccasionRoutes.gift.path(scope.id))
            OccasionRoutes.changed(tx, app, occasionID: scope.id)
            return member.displayName
        }
        try app.database.write { tx in try context.flash(tx, "Nudged \(outcome). They'll find it in their inbox.") }
        return .redirect(to: HostRoutes.panel.path(scope.id))
    }

    /// The host panel's big-day section, read in the panel's own snapshot.
    static func hostSection(_ db: Connection, scope: OccasionScope, app: KithApp, zone: String, form: FormState) throws -> HostBigDay.Model {
        let members = try OccasionStore.members(db, occasionID: scope.id)
        let progress = try OccasionBookStore.progress(db, occasionID: scope.id)
        let nudges = try OccasionBookStore.lastNudges(db, occasionID: scope.id)
        let now = app.now
        let people = members.filter { $0.role != .celebrant }.map { member -> HostBigDay.Person in
            let done = progress[member.userID]
            let gift: String =
                switch done?.giftState {
                case nil: "Not started"
                case .draft: "Writing (a draft)"
                case .submitted: "Sent, waiting for a price"
                case .onOffer: "On offer"
                case .unlocked: "Unlocked"
                }
            var action: String? = nil
            var note: String? = nil
            if member.role == .contributor {
                if missing(done) == nil {
                    note = "All written"
                } else if let last = nudges[member.userID], now < last + nudgeEvery {
                    note = "Nudged \(TimeText.relative(last, now: now)); again from \(TimeText.local(last + nudgeEvery, zone: zone).human)"
                } else {
                    action = nudge.path(scope.id, member.userID)
                }
            }
            return HostBigDay.Person(
                name: member.displayName, role: member.role.label, joined: TimeText.local(member.joinedAt, zone: zone).human,
                dare: done?.hasDare == true ? "Written" : "Not yet", gift: gift, nudgeAction: action, nudgeNote: note)
        }
        let (revealZone, isCelebrants) = try ScheduledReveal.zone(db, scope: scope, hostZone: zone)
        let occasion = scope.occasion
        let revealStatus: String =
            if let at = occasion.revealAt {
                now < at
                    ? "Gifts open \(TimeText.local(at, zone: occasion.revealZone ?? revealZone, withYear: true).human) (\(occasion.revealZone ?? revealZone) time), in \(ScheduledReveal.remaining(at - now)). Until then \(occasion.celebrantName) can't unlock any, and everyone can still add gifts."
                    : "The moment came \(TimeText.local(at, zone: occasion.revealZone ?? revealZone, withYear: true).human): gifts can be unlocked."
            } else {
                "No time set: \(occasion.celebrantName) can unlock a gift as soon as it is on offer."
            }
        let zoneNote =
            isCelebrants
            ? "In \(occasion.celebrantName)'s time zone, \(revealZone)."
            : "In your time zone, \(revealZone), until \(occasion.celebrantName) joins; set it again then if they live elsewhere."
        let bookOpen = OccasionBook.isOpen(occasion)
        let bookStatus: String =
            bookOpen
            ? "Open: everyone reads every unlocked gift."
            : occasion.finaleAt == nil
                ? "Closed. After the finale you can open it, so everyone reads every unlocked gift."
                : "Closed: only you and \(occasion.celebrantName) read every gift."
        var model = HostBigDay.Model(
            people: people, revealStatus: revealStatus,
            revealValue: occasion.revealAt.map { ScheduledReveal.localValue($0, zone: occasion.revealZone ?? revealZone) } ?? "",
            revealZoneNote: zoneNote, revealAction: ScheduledReveal.set.path(scope.id), hasReveal: occasion.revealAt != nil,
            bookStatus: bookStatus,
            bookOpenAction: !bookOpen && occasion.finaleAt != nil ? OccasionBook.open.path(scope.id) : nil,
            bookCloseAction: bookOpen ? OccasionBook.close.path(scope.id) : nil, bookURL: OccasionBook.page.path(scope.id),
            partyURL: PartyRoutes.page.path(scope.id))
        if let refused = form.errors["reveal_at"] {
            model.revealValue = form.values["reveal_at"] ?? ""
            model.revealError = refused
        }
        return model
    }
}
