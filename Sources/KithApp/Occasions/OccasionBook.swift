import KithHTTP
import KithStorage
import KithTemplates

/// The shared book. Until it opens, contributors read only their own gift;
/// after the finale the host may open it, and then every member reads every
/// unlocked gift (the host may close it again). `isOpen` is the one answer
/// to whether it is open: the scope's reading rule asks it, and so does
/// anything else that widens to "every member" while the book is open.
enum OccasionBook {
    static let page = Route(.get, "/occasions/:occasion/book")
    static let open = Route(.post, "/occasions/:occasion/host/book/open")
    static let close = Route(.post, "/occasions/:occasion/host/book/close")

    /// Whether every member may read every unlocked gift of `occasion`.
    static func isOpen(_ occasion: Occasion) -> Bool { occasion.bookOpenedAt != nil }

    /// The same, for code that holds an occasion's id rather than the row.
    static func isOpen(_ db: some Queryable, occasionID: Int64) throws -> Bool {
        try OccasionBookStore.bookOpenedAt(db, occasionID: occasionID) != nil
    }

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(page) { context in try render(context) }
        Endpoint(open) { context in
            try HostRoutes.act(context, back: page.path(try context.request.parameter("occasion", as: Int64.self))) { tx, scope in
                guard scope.occasion.finaleAt != nil else {
                    throw HTTPError(.conflict, "The book opens after the finale. Call the finale first, or wait for the last gift.")
                }
                _ = try OccasionBookStore.openBook(tx, occasionID: scope.id, now: context.app.now)
            }
        }
        Endpoint(close) { context in
            try HostRoutes.act(context) { tx, scope in try OccasionBookStore.closeBook(tx, occasionID: scope.id) }
        }
    }

    static func render(_ context: RequestContext) throws -> Response {
        let zone = context.user?.timeZone ?? "UTC"
        let (scope, frame, data) = try OccasionPages.prepare(context) { db, scope in
            (
                try OccasionStore.gifts(db, occasionID: scope.id), try OccasionStore.members(db, occasionID: scope.id),
                Dictionary(grouping: try OccasionMediaStore.items(db, occasionID: scope.id), by: { $0.giftID ?? 0 })
            )
        }
        let (gifts, members, media) = data
        let open = isOpen(scope.occasion)
        // In the order the celebrant opened them: the book tells the day as it went.
        let readable = gifts.filter { $0.state == .unlocked && scope.canRead($0) }
            .sorted { ($0.unlockedAt ?? 0, $0.id) < ($1.unlockedAt ?? 0, $1.id) }
        let entries = readable.map { gift -> OccasionBookPage.Entry in
            let isAuthor = gift.authorID == scope.viewer.userID
            let giver = isAuthor ? "you" : FormerMember.name(members.first { $0.userID == gift.authorID }?.displayName)
            let time = TimeText.local(gift.unlockedAt ?? 0, zone: zone)
            return OccasionBookPage.Entry(
                id: gift.id, title: "\(gift.kind.label) from \(giver)", when: time.human, isoTime: time.machine,
                content: OccasionPages.giftContent(gift, items: media[gift.id] ?? [], giver: giver, occasionID: scope.id, csrf: context.csrfToken),
                url: OccasionRoutes.showGift.path(scope.id, gift.id))
        }
        let celebrant = scope.occasion.celebrantName
        let status: String =
            if open {
                "Every gift \(celebrant) has opened, for everyone in \(scope.occasion.name) to read."
            } else if scope.role.canManage {
                scope.occasion.finaleAt == nil
                    ? "Closed. After the finale you can open it, and everyone reads every gift \(celebrant) opened."
                    : "Closed: only you and \(celebrant) read every gift. Open it from the host panel to share them with everyone."
            } else if scope.role.canPlay {
                "Closed: your people see only their own gift until the host opens the book."
            } else {
                "Not open yet. After the finale the host can open it; until then you see only your own gift."
            }
        let header = OccasionRoutes.header(scope)
        return context.app.page(
            OccasionBookPage.render(
                context: frame, header: header, path: page.path(scope.id),
                model: OccasionBookPage.Model(
                    status: status, entries: entries,
                    empty: open || !scope.role.canContribute ? "No gift has been opened yet." : "Nothing for you here yet.",
                    partyURL: PartyRoutes.mayOpen(scope) ? PartyRoutes.page.path(scope.id) : nil)))
    }

    /// The occasion's header with its banner, for the pages that carry one.
    static func header(_ scope: OccasionScope, context: RequestContext) -> OccasionPage.Header {
        var header = OccasionRoutes.header(scope)
        header.banner = banner(scope, context: context)
        return header
    }

    /// The notices every main occasion page carries: the countdown before a
    /// scheduled reveal, and a way into the book while it is open.
    static func banner(_ scope: OccasionScope, context: RequestContext) -> HTML {
        var banner = ScheduledReveal.countdown(scope, now: context.app.now, viewerZone: context.user?.timeZone ?? "UTC")
        if isOpen(scope.occasion) { banner.append(OccasionBanner.book(url: page.path(scope.id), partyURL: PartyRoutes.page.path(scope.id))) }
        return banner
    }
}
