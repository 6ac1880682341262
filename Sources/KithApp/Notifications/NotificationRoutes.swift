import KithHTTP
import KithTemplates

/// The inbox: the page, its two live fragments (the nav badge and the list),
/// opening an entry, marking everything read, and muting what an entry is
/// about. Every entry is looked up together with its owner, so someone
/// else's id is a 404, exactly like one that does not exist.
enum NotificationRoutes {
    static let inbox = Route(.get, "/inbox")
    static let count = Route(.get, "/inbox/count")
    static let list = Route(.get, "/inbox/list")
    static let open = Route(.post, "/inbox/:notification/open")
    static let mute = Route(.post, "/inbox/:notification/mute")
    static let markAllRead = Route(.post, "/inbox/read-all")

    /// The newest entries the inbox shows; older ones stay stored.
    static let pageSize = 100

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(inbox) { context in
            let user = try context.requireUser()
            let model = try inboxModel(context, user: user)
            return context.app.page(InboxPage.render(context: context.pageContext(), model: model))
        }
        Endpoint(count) { context in
            // Fetched by script: signed out, it answers 401 with the reason.
            let user = try context.requireUser()
            let unread = try context.app.database.read { try NotificationStore.unreadCount($0, userID: user.id) }
            return context.app.page(InboxPage.count(unread, links: .routes))
        }
        Endpoint(list) { context in
            let user = try context.requireUser()
            // A fragment, not a page: the plain frame, which leaves this session's flash messages for its next page.
            var frame = context.app.pageContext()
            frame.csrfToken = context.csrfToken
            return context.app.page(InboxPage.list(frame, try inboxModel(context, user: user)))
        }
        Endpoint(open) { context in
            let user = try context.requireUser()
            let entry = try loadEntry(context, user: user)
            let app = context.app
            let now = app.now
            try app.database.write { tx in
                try NotificationStore.markRead(tx, id: entry.id, userID: user.id, now: now)
                tx.afterCommit { app.notifications.publishInboxChanged(for: user.id) }
            }
            return .redirect(to: localPath(entry.url) ?? inbox.path())
        }
        Endpoint(mute) { context in
            let user = try context.requireUser()
            let entry = try loadEntry(context, user: user)
            let muting = context.request.form["muted"] != "0"
            let notifications = context.app.notifications
            try context.app.database.write { tx in
                if muting {
                    try notifications.mute(scope: entry.scope, for: user.id, in: tx)
                } else {
                    try notifications.unmute(scope: entry.scope, for: user.id, in: tx)
                }
                try context.flash(tx, muting ? "Muted. You won't hear about that any more." : "Unmuted. You'll hear about it again.")
                tx.afterCommit { notifications.publishInboxChanged(for: user.id) }
            }
            return .redirect(to: inbox.path())
        }
        Endpoint(markAllRead) { context in
            let user = try context.requireUser()
            let app = context.app
            let now = app.now
            try app.database.write { tx in
                if try NotificationStore.markAllRead(tx, userID: user.id, now: now) > 0 {
                    tx.afterCommit { app.notifications.publishInboxChanged(for: user.id) }
                }
            }
            return .redirect(to: inbox.path())
        }
    }

    /// The one place an entry is found for a request: its owner's, or 404.
    static func loadEntry(_ context: RequestContext, user: User) throws -> NotificationStore.Entry {
        let id = try context.request.parameter("notification", as: Int64.self)
        guard let entry = try context.app.database.read({ try NotificationStore.entry($0, id: id, userID: user.id) }) else {
            throw HTTPError.notFound("That notification isn't in your inbox.")
        }
        return entry
    }

    static func inboxModel(_ context: RequestContext, user: User) throws -> InboxPage.Model {
        let now = context.app.now
        let (entries, unread, muted) = try context.app.database.read { db in
            let entries = try NotificationStore.inbox(db, userID: user.id, limit: pageSize)
            return (
                entries, try NotificationStore.unreadCount(db, userID: user.id),
                try NotificationStore.mutedScopes(db, userID: user.id, among: Set(entries.map(\.scope)))
            )
        }
        let items = entries.map { entry in
            InboxPage.Item(
                title: entry.title, body: entry.body, isRead: entry.isRead,
                relativeTime: TimeText.relative(entry.createdAt, now: now),
                machineTime: TimeText.utc(entry.createdAt, machine: true), openAction: open.path(entry.id),
                muteAction: mute.path(entry.id), isMuted: muted.contains(entry.scope))
        }
        return InboxPage.Model(items: items, unreadCount: unread, markAllReadAction: markAllRead.path())
    }

    /// `url` when it stays on this site: a single leading slash, no
    /// scheme-relative `//host` or `/\host` a browser would leave Kith for,
    /// and no control characters that could split a header.
    static func localPath(_ url: String) -> String? {
        let bytes = Array(url.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return nil }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return nil }
        return url
    }
}
