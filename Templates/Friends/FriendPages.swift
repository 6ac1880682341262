/// The friends page: add someone by username, and the list with a remove
/// button each. Faces are drawn as the tallies draw them, the pages where
/// friends meet.
public enum FriendPages {
    /// A friend on the friends page, with where removing them posts.
    public struct Friend: Sendable {
        public var person: TallyPages.Person
        public var removeURL: String
        /// What unfriending them would do.
        public var removeConfirmation: Confirmation?
        public init(person: TallyPages.Person, removeURL: String, removeConfirmation: Confirmation? = nil) {
            self.removeConfirmation = removeConfirmation
            self.person = person
            self.removeURL = removeURL
        }
    }

    public static func friends(context: PageContext, friends: [Friend], form: FormState, addURL: String) -> HTML {
        let list: HTML =
            friends.isEmpty
            ? EmptyState.render(title: "No friends yet", message: "Add someone by their username: you become friends both ways at once.")
            : """
                <ul class="friend-list stack" aria-label="Your friends">
                \(friends.map { entry -> HTML in
                    let friend = entry.person
                    return """
                    <li class="friend card cluster cluster--between">
                    <span class="cluster">\(TallyPages.avatar(friend, label: "", size: 40))<span><strong>\(friend.name)</strong>\(friend.username.map { " <span class=\"muted\">@\($0)</span>" as HTML })</span></span>
                    <form method="post"\(attribute: "action", entry.removeURL)\(entry.removeConfirmation.map(Confirm.attributes))>
                    \(Layout.csrfField(context.csrfToken))
                    <button class="button button--secondary button--small" type="submit"\(attribute: "aria-label", "Remove \(friend.name)")>Remove</button>
                    </form>
                    </li>
                    """
                })
                </ul>
                """
        return Layout.page(
            title: "Friends", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Friends</h1><p>Friends can share tallies with each other. Removing a friend stops every tally shared between you.</p></header>
                \(form.summary(order: ["username"]))
                <form class="card stack" method="post"\(attribute: "action", addURL)>
                \(Layout.csrfField(context.csrfToken))\(form.onceField)
                \(FormField.text(name: "username", label: "Their username", value: form.values["username"], error: form.errors["username"], required: true, maxLength: 30, autocomplete: "off"))
                <div>\(Button.primary("Add friend"))</div>
                </form>
                \(list)
                </section>
                """)
    }
}
