import KithHTTP
import KithTemplates

/// Friends: add by username (mutual at once), remove (and with it, in the
/// same transaction, whatever other features let the two share: they
/// follow `FriendsFeature.friendshipEnded`).
enum FriendRoutes {
    static let index = Route(.get, "/friends")
    static let add = Route(.post, "/friends")
    static let remove = Route(.post, "/friends/:user/remove")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(index) { context in
            let user = try context.requireUser()
            return try page(context, user: user, form: FormState())
        }
        Endpoint(add) { context in
            let user = try context.requireUser()
            let once = try context.onceForm()
            let typed = (context.request.form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            let username = typed.hasPrefix("@") ? String(typed.dropFirst()) : typed
            guard !username.isEmpty else {
                return try page(context, user: user, form: FormState(values: ["username": typed], errors: ["username": "Enter their username."]), status: .unprocessableContent)
            }
            let now = context.app.now
            do {
                return .redirect(to: try context.app.database.write { tx in
                    try once.run(tx) {
                        switch try FriendStore.add(tx, userID: user.id, username: username, now: now) {
                        case .added(let friend):
                            try context.flash(tx, "You and \(friend.displayName) are friends now.")
                            return index.path()
                        // Thrown, so the form's token stays unspent for the corrected username.
                        case .unknown: throw Refused(message: "Nobody on Kith goes by \(username). Check the spelling with them.")
                        case .yourself: throw Refused(message: "That's you! Add someone else's username.")
                        case .alreadyFriends(let friend): throw Refused(message: "You and \(friend.displayName) are already friends.")
                        }
                    }
                })
            } catch let refused as Refused {
                return try page(
                    context, user: user, form: FormState(values: ["username": typed], errors: ["username": refused.message]),
                    status: .unprocessableContent)
            }
        }
        Endpoint(remove) { context in
            let user = try context.requireUser()
            let friendID = try context.request.parameter("user", as: Int64.self)
            let app = context.app
            let friend = try app.database.read { db in try FriendStore.friends(db, userID: user.id).first { $0.id == friendID } }
            guard let friend else { throw HTTPError.notFound("That person isn't on your friends list.") }
            if let page = context.unconfirmed(removeConfirmation(friend.displayName), cancel: index.path()) { return page }
            try app.database.write { tx in
                guard try FriendStore.areFriends(tx, user.id, friendID) else { throw HTTPError.notFound("That person isn't on your friends list.") }
                // Before the rows go, so a handler still sees the friendship.
                try app.emit(FriendsFeature.friendshipEnded, tx, subject: user.id, other: friendID)
                try FriendStore.remove(tx, userID: user.id, friendID: friendID)
            }
            return .redirect(to: index.path())
        }
    }

    /// Friends cannot count what other features share between the two (they
    /// learn of the ending through `friendshipEnded`), so the words say what
    /// every such feature does: sharing stops, both ways.
    static func removeConfirmation(_ name: String) -> Confirmation {
        Confirmation(
            "Remove \(name) as a friend?",
            "Every tally shared between you stops being shared, both ways. You can add each other again later.", button: "Remove friend")
    }

    private struct Refused: Error { let message: String }

    static func page(_ context: RequestContext, user: User, form: FormState, status: HTTPStatus = .ok) throws -> Response {
        var form = form
        form.onceToken = context.onceToken()
        let frame = context.pageContext()
        let friends = try context.app.database.read { try FriendStore.friends($0, userID: user.id) }
        return context.app.page(
            FriendPages.friends(
                context: frame,
                friends: friends.map {
                    FriendPages.Friend(
                        person: $0.shown(in: context.app), removeURL: remove.path($0.id), removeConfirmation: removeConfirmation($0.displayName))
                },
                form: form, addURL: add.path()), status: status)
    }
}
