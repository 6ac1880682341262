/// The tally pages: the home list and its rows, the full-screen view, the
/// create form. Rows and the full-screen face are live fragments: each has
/// an id and the URL that renders exactly it for whoever asks.
public enum TallyPages {
    /// Someone shown beside a tally.
    public struct Person: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var username: String?
        public var avatarURL: String
        /// An avatar colour id (`teal`): the ring around the face.
        public var colour: String
        public init(id: Int64, name: String, username: String?, avatarURL: String, colour: String) {
            self.id = id
            self.name = name
            self.username = username
            self.avatarURL = avatarURL
            self.colour = colour
        }
    }

    /// One tally as one viewer sees it.
    public struct Item: Sendable {
        public var id: Int64
        public var name: String
        public var count: Int64
        public var style: Numerals.Style
        public var owner: Person
        public var isOwner: Bool
        public var canChangeCount: Bool
        /// Someone else changed it since this viewer last looked.
        public var flashBy: Person?
        /// Where the page script says a flash was shown.
        public var seenURL: String
        public var fireworks: Bool
        /// What one tap adds: the page script shows it before the answer.
        public var step: Int64 = 1
        public var createdAt: Int64
        public var updatedAt: Int64
        public var version: Int64
        public init(
            id: Int64, name: String, count: Int64, style: Numerals.Style, owner: Person, isOwner: Bool, canChangeCount: Bool,
            flashBy: Person?, seenURL: String, fireworks: Bool, createdAt: Int64, updatedAt: Int64, version: Int64, paths: Paths
        ) {
            self.seenURL = seenURL
            self.paths = paths
            self.id = id
            self.name = name
            self.count = count
            self.style = style
            self.owner = owner
            self.isOwner = isOwner
            self.canChangeCount = canChangeCount
            self.flashBy = flashBy
            self.fireworks = fireworks
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.version = version
        }

        public var paths: Paths
        /// The goal and how it stands, when the tally has one.
        public var goal: Goal?
        /// What a screen reader says for the count control: "Coffee, 12, increment".
        var spokenName: String {
            "\(name), \(Numerals.arabic(count)), \(canChangeCount ? "increment" : "view only")"
        }
    }

    /// Where one tally's pages and forms are, built by the app from its routes.
    public struct Paths: Sendable {
        public var show, row, face, people: String
        public var increment, setCount, reset, rename, schedule, fireworks, sharing, mute, delete, leave: String
        /// The service worker and its scope, which keep taps made offline
        /// and the last list seen; registered by the page script.
        public var worker = "", workerScope = ""
        /// Where the owner sets the goal.
        public var goal = ""
        /// Where the person moves it in their own order, and pins it.
        public var move = "", pin = ""
        /// Where the live fragments inside the page are fetched together.
        public var fragments = ""
        public init(
            show: String, row: String, face: String, people: String, increment: String, setCount: String, reset: String,
            rename: String, schedule: String, fireworks: String, sharing: String, mute: String, delete: String, leave: String
        ) {
            (self.show, self.row, self.face, self.people) = (show, row, face, people)
            (self.increment, self.setCount, self.reset, self.rename, self.schedule) = (increment, setCount, reset, rename, schedule)
            (self.fireworks, self.sharing, self.mute, self.delete, self.leave) = (fireworks, sharing, mute, delete, leave)
        }
    }

    /// Where the list, the new-tally form and friends are.
    public struct Links: Sendable {
        public var home, list, sort, new, create, friends, addFriend: String
        public init(home: String, list: String, sort: String, new: String, create: String, friends: String, addFriend: String) {
            (self.home, self.list, self.sort, self.new) = (home, list, sort, new)
            (self.create, self.friends, self.addFriend) = (create, friends, addFriend)
        }
    }

    public enum Sort: String, Sendable {
        case updated, created, manual
    }

    // MARK: The list

    /// The dashboard's tallies section: heading, create link, the list.
    public static func section(items: [Item], sort: Sort, links: Links, csrfToken: String?, undo: Confirm.UndoNotice? = nil) -> HTML {
        """
        <section class="dashboard-section tallies-section stack" aria-labelledby="tallies-heading">
        <div class="cluster cluster--between">
        <h2 id="tallies-heading">Tallies</h2>
        <div class="cluster">\(Button.link("Friends", href: links.friends, style: .secondary, small: true))\(Button.link("New tally", href: links.new, small: true))</div>
        </div>
        \(Confirm.undo(undo, csrf: csrfToken))
        \(list(items: items, sort: sort, links: links, csrfToken: csrfToken))
        </section>
        """
    }

    /// The list with its sort switch; a fragment refetched when a tally
    /// joins or leaves it.
    public static func list(items: [Item], sort: Sort, links: Links, csrfToken: String?) -> HTML {
        let body: HTML
        if items.isEmpty {
            body = EmptyState.render(
                title: "No tallies yet", message: "Count anything — coffees, push-ups, times the cat sat on the keyboard — alone or with friends.",
                action: Button.link("Start a tally", href: links.new), headingLevel: 3)
        } else {
            body = """
                <form class="tally-sort cluster" method="post"\(attribute: "action", links.sort)>
                \(Layout.csrfField(csrfToken))
                <span class="muted text-sm" id="tally-sort-label">Sort by</span>
                <div class="cluster tally-sort__options" role="group" aria-labelledby="tally-sort-label">
                \(sortButton("updated", "Last updated", current: sort))\(sortButton("created", "Created", current: sort))\(sortButton("manual", "My order", current: sort))
                </div>
                </form>
                <ul class="tally-list"\(listOrder(sort)) aria-label="Your tallies">
                \(items.map { row($0, returnTo: links.home, csrfToken: csrfToken) })
                </ul>
                """
        }
        return """
            <div class="tally-list-wrap stack"\(attribute: "id", FragmentID.tallyList.rawValue)\(attribute: "data-fragment", links.list)>
            \(body)
            </div>
            """
    }

    static func sortButton(_ value: String, _ label: String, current: Sort) -> HTML {
        let pressed = current.rawValue == value
        return """
            <button class="button button--small\(pressed ? "" : " button--secondary")" type="submit" name="sort"\(attribute: "value", value) aria-pressed="\(pressed ? "true" : "false")">\(label)</button>
            """
    }

    /// One row: owner's face, name (opens the tally), a lock when view-only,
    /// the avatar of whoever changed it since you looked, and the count,
    /// which is the increment button.
    /// `returnTo` is where the count's form lands without the page script.
    public static func row(_ item: Item, returnTo: String, csrfToken: String?) -> HTML {
        let lock: HTML = item.canChangeCount ? "" : "<span class=\"tally-row__lock\">\(lockIcon)<span class=\"visually-hidden\">View only</span></span>"
        return """
            <li class="tally-row"\(attribute: "id", FragmentID.tallyRow(item.id).rawValue)\(attribute: "data-fragment", item.paths.row) data-tally="\(item.id)" \
            data-created="\(item.createdAt)" data-updated="\(item.updatedAt)" data-version="\(item.version)"\
            \(attribute: "data-fireworks", when: item.fireworks)\(attribute: "data-flash", item.flashBy.map { _ in item.seenURL })>
            \(avatar(item.owner, label: item.isOwner ? "You own this" : "Owned by \(item.owner.name)", size: 36))
            <div class="tally-row__main">
            <a class="tally-row__name"\(attribute: "href", item.paths.show)>\(item.name)</a>
            \(flash(item.flashBy))
            \(goalBar(item.goal))
            </div>
            \(lock)
            \(countControl(item, csrfToken: csrfToken, fragment: "row", returnTo: returnTo, classes: "tally-row__count"))
            \(moveControls(item, csrfToken: csrfToken))
            </li>
            """
    }

    static func flash(_ person: Person?) -> HTML {
        guard let person else { return "" }
        return """
            <span class="tally-flash">\(avatar(person, label: "", size: 24))<span class="tally-flash__text">\(person.name) changed this</span></span>
            """
    }

    /// The count as a button that increments it (a form post without
    /// script), or, view-only, a button that only says so.
    static func countControl(_ item: Item, csrfToken: String?, fragment: String, returnTo: String, classes: String) -> HTML {
        let numeral = Numerals.render(item.count, style: item.style)
        guard item.canChangeCount else {
            return """
                <button class="\(classes) tally-count tally-count--view" type="button" data-view-only aria-disabled="true"\(attribute: "aria-label", item.spokenName)>\(numeral)</button>
                """
        }
        return """
            <form class="tally-count-form" method="post"\(attribute: "action", item.paths.increment) data-increment data-offline-queue\(attribute: "data-style", item.style.rawValue)\(attribute: "data-step", String(item.step))\(attribute: "data-worker", item.paths.worker)\(attribute: "data-worker-scope", item.paths.workerScope)>
            \(Layout.csrfField(csrfToken))<input type="hidden" name="fragment"\(attribute: "value", fragment)><input type="hidden" name="return"\(attribute: "value", returnTo)>
            <button class="\(classes) tally-count" type="submit"\(attribute: "aria-label", item.spokenName) data-count="\(item.count)">\(numeral)</button>
            </form>
            """
    }

    public static func avatar(_ person: Person, label: String, size: Int) -> HTML {
        """
        <img class="tally-avatar tally-avatar--\(person.colour)"\(attribute: "src", person.avatarURL)\(attribute: "alt", label) width="\(size)" height="\(size)">
        """
    }

    static let lockIcon: HTML = """
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"><rect x="5" y="11" width="14" height="10" rx="2"/><path d="M8 11V8a4 4 0 0 1 8 0v3"/></svg>
        """

    // MARK: The full-screen view

    public struct Share: Sendable {
        public var person: Person
        /// "none", "view" or "edit".
        public var permission: String
        public init(person: Person, permission: String) {
            self.person = person
            self.permission = permission
        }
    }

    public struct FullModel: Sendable {
        public var item: Item
        public var canManage: Bool
        public var schedule: String
        public var schedules: [(value: String, label: String)]
        /// "Next reset: 1 March, 00:00 (Europe/London)", or nil when off.
        public var nextReset: String?
        /// "Updated 3 minutes ago by Bob".
        public var updated: String
        /// Everyone who sees it, for the people table (not the owner).
        public var people: [Share]
        /// The owner's friends, for the sharing form (owner only).
        public var friends: [Share]
        public var muted: Bool
        /// The rename and set-count forms, shown again with their errors.
        public var form: FormState
        public var links: Links
        /// What resetting, deleting and leaving would do, in that order.
        public var confirm: [Confirmation]
        /// The viewer's own reset, while it can still be undone.
        public var undo: Confirm.UndoNotice?
        /// Beside the big count: −1, the step, the last period (TallyHistoryPages).
        public var countExtras: HTML = ""
        /// The owner's step choice, after the count card.
        public var stepCard: HTML = ""
        /// The history section with its charts, below the settings.
        public var history: HTML = ""
        /// Pinned by the viewer, and opened from its home-screen shortcut.
        public var pinned = false, standalone = false
        public init(
            item: Item, canManage: Bool, schedule: String, schedules: [(value: String, label: String)], nextReset: String?,
            updated: String, people: [Share], friends: [Share], muted: Bool, links: Links, form: FormState = FormState(),
            confirm: [Confirmation], undo: Confirm.UndoNotice? = nil
        ) {
            self.confirm = confirm
            self.undo = undo
            self.links = links
            self.item = item
            self.canManage = canManage
            self.schedule = schedule
            self.schedules = schedules
            self.nextReset = nextReset
            self.updated = updated
            self.people = people
            self.friends = friends
            self.muted = muted
            self.form = form
        }
    }

    /// The big count, name and "updated by": the live part of the page.
    public static func face(_ model: FullModel, csrfToken: String?) -> HTML {
        let item = model.item
        let lock: HTML = item.canChangeCount ? "" : "<p class=\"tally-face__lock\">\(lockIcon) View only</p>"
        return """
            <section class="tally-face stack"\(attribute: "id", FragmentID.tallyFace(item.id).rawValue)\(attribute: "data-fragment", item.paths.face) data-tally="\(item.id)" \
            data-version="\(item.version)"\(attribute: "data-fireworks", when: item.fireworks)\(attribute: "data-flash", item.flashBy.map { _ in item.seenURL }) aria-labelledby="tally-title">
            <h1 class="tally-face__name" id="tally-title">\(item.name)</h1>
            \(goalRing(item.goal, around: countControl(item, csrfToken: csrfToken, fragment: "face", returnTo: item.paths.show, classes: "tally-face__count")))
            \(model.countExtras)
            \(lock)
            <p class="tally-face__updated muted">\(flash(item.flashBy)) \(model.updated)</p>
            </section>
            """
    }

    public static func full(context: PageContext, model: FullModel) -> HTML {
        let item = model.item
        let csrf = context.csrfToken
        // Grouped and collapsed, so on a phone the count owns the screen and
        // each group opens on its own; a group whose form has an error opens.
        let errors = model.form.errors
        var groups: [HTML] = []
        var count: [HTML] = []
        if item.canChangeCount {
            count.append("""
                <form class="stack" method="post"\(attribute: "action", item.paths.setCount)>
                \(Layout.csrfField(csrf))
                \(FormField.number(name: "count", label: "Set the count to", value: model.form.values["count"] ?? String(item.count), error: errors["count"], required: true, min: 0, max: 999_999_999))
                <div>\(Button.secondary("Set count", small: true))</div>
                </form>
                \(Confirm.button("Reset to 0 now", action: item.paths.reset, csrf: csrf, model.confirm[0], formClass: "tally-reset"))
                """)
        }
        if model.canManage {
            count.append(toggle(
                action: item.paths.fireworks, field: "fireworks", isOn: item.fireworks, csrf: csrf,
                note: item.fireworks ? "Fireworks go off when the count goes up." : "Fireworks are off.",
                button: item.fireworks ? "Turn fireworks off" : "Turn fireworks on"))
        }
        if !model.stepCard.isEmpty { count.append("<h3 class=\"tally-group__heading\">Step</h3>\n\(model.stepCard)") }
        if !count.isEmpty { groups.append(group(title: "Count", open: errors["count"] != nil, count.joined(separator: "\n"))) }
        if model.canManage { groups.append(goalCard(model, csrf: csrf)) }
        groups.append(group(title: "Sharing", open: errors["share"] != nil, people(model, csrf: csrf)))
        var naming: [HTML] = []
        if model.canManage {
            naming.append("""
                <form class="stack" method="post"\(attribute: "action", item.paths.rename)>
                \(Layout.csrfField(csrf))
                \(FormField.text(name: "name", label: "Name", value: model.form.values["name"] ?? item.name, error: errors["name"], required: true, maxLength: 60))
                <div>\(Button.secondary("Rename", small: true))</div>
                </form>
                """)
        }
        naming.append("<h3 class=\"tally-group__heading\">Resets</h3>\n\(resets(model, csrf: csrf))")
        naming.append("<h3 class=\"tally-group__heading\">Colour</h3>\n\(colour(item))")
        groups.append(group(
            title: model.canManage ? "Name & schedule" : "Schedule & colour", open: errors["name"] != nil || errors["schedule"] != nil,
            naming.joined(separator: "\n")))
        groups.append(group(title: "Home screen", open: false, pinToggle(model, csrf: csrf)))
        groups.append(group(title: "Notifications", open: false, toggle(
            action: item.paths.mute, field: "muted", isOn: model.muted, csrf: csrf,
            note: model.muted ? "You won't hear about friends' changes to this tally." : "Your inbox tells you when friends change this tally.",
            button: model.muted ? "Unmute" : "Mute")))
        if model.canManage {
            groups.append(group(title: "Delete", open: false, """
                <p class="muted">Deleting removes this tally for everyone it is shared with.</p>
                <div>\(Confirm.button(action: item.paths.delete, csrf: csrf, model.confirm[1]))</div>
                """))
        } else {
            groups.append(group(title: "Leave", open: false, """
                <p class="muted">\(item.owner.name) keeps the tally; it leaves your list.</p>
                <div>\(Confirm.button(action: item.paths.leave, csrf: csrf, model.confirm[2]))</div>
                """))
        }
        return Layout.page(
            title: item.name, context: context,
            main: """
                <div class="container stack tally-full" data-tally-page="\(item.id)"\(attribute: "data-fragment-batch", item.paths.fragments.isEmpty ? nil : item.paths.fragments)\(attribute: "data-standalone", when: model.standalone)\(attribute: "data-ending-gone", model.canManage ? "\(item.name) was deleted" : "\(item.name) isn't shared with you any more")>
                <p><a\(attribute: "href", model.links.home)>← All tallies</a></p>
                \(Confirm.undo(model.undo, csrf: csrf))
                \(model.form.summary(order: ["name", "count", "goal_target", "goal_period", "schedule", "share"]))
                \(face(model, csrfToken: csrf))
                <div class="tally-settings stack">
                \(groups)
                </div>
                \(model.history)
                </div>
                """)
    }

    /// A setting that is on or off: the form posts the opposite.
    static func toggle(action: String, field: String, isOn: Bool, csrf: String?, note: String, button: String) -> HTML {
        """
        <form class="stack" method="post"\(attribute: "action", action)>
        \(Layout.csrfField(csrf))
        <p class="muted">\(note)</p>
        <input type="hidden"\(attribute: "name", field)\(attribute: "value", isOn ? "0" : "1")>
        <div>\(Button.secondary(button, small: true))</div>
        </form>
        """
    }

    /// A settings group: a heading that opens and closes what is under it.
    static func group(title: String, open: Bool, _ body: HTML) -> HTML {
        """
        <details class="card tally-group"\(attribute: "open", when: open)><summary class="tally-group__summary"><h2 class="card__title">\(title)</h2></summary>
        <div class="stack tally-group__body">
        \(body)
        </div>
        </details>
        """
    }

    static func resets(_ model: FullModel, csrf: String?) -> HTML {
        let current = model.schedules.first { $0.value == model.schedule }?.label ?? model.schedule
        let next: HTML = model.nextReset.map { "<p class=\"muted\">\($0)</p>" } ?? ""
        guard model.canManage else {
            return "<p>\(current)</p>\n\(next)"
        }
        return """
            <form class="stack" method="post"\(attribute: "action", model.item.paths.schedule)>
            \(Layout.csrfField(csrf))
            \(FormField.select(name: "schedule", label: "Reset to 0", options: model.schedules, selected: model.schedule, hint: "At midnight where you are.", error: model.form.errors["schedule"]))
            \(next)
            <div>\(Button.secondary("Save resets", small: true))</div>
            </form>
            """
    }

    /// Twelve tints kept by this browser alone; the script shows the picker.
    static func colour(_ item: Item) -> HTML {
        let swatches = (0..<12).map { index -> HTML in
            "<button class=\"tally-swatch tint-\(index + 1)\" type=\"button\" data-tint=\"\(index + 1)\" aria-pressed=\"false\"><span class=\"visually-hidden\">Colour \(index + 1)</span></button>"
        }
        return """
            <div class="tally-colours" data-tally-colours="\(item.id)">
            <p class="muted">A tint for this tally on this device only.</p>
            <p class="tally-colours__nojs muted">Colours need JavaScript.</p>
            <div class="cluster tally-swatches" role="group" aria-label="Colour" hidden>
            <button class="tally-swatch tally-swatch--none" type="button" data-tint="0" aria-pressed="false">Default</button>
            \(swatches)
            </div>
            </div>
            """
    }

    /// Who sees the tally. The owner's version is the sharing form: every
    /// friend with not shared, view or edit.
    public static func people(_ model: FullModel, csrf: String?) -> HTML {
        let item = model.item
        let ownerRow: HTML = """
            <tr><th scope="row" class="tally-person">\(avatar(item.owner, label: "", size: 28)) \(names(item.owner))</th><td>Owner</td></tr>
            """
        guard model.canManage else {
            let rows = model.people.map { share -> HTML in
                "<tr><th scope=\"row\" class=\"tally-person\">\(avatar(share.person, label: "", size: 28)) \(names(share.person))</th><td>\(label(share.permission))</td></tr>"
            }
            return """
                <div\(attribute: "id", FragmentID.tallyPeople(item.id).rawValue)\(attribute: "data-fragment", item.paths.people)>
                <table class="tally-people"><thead><tr><th scope="col">Person</th><th scope="col">Can</th></tr></thead>
                <tbody>\(ownerRow)\(rows)</tbody></table>
                </div>
                """
        }
        guard !model.friends.isEmpty else {
            return """
                <div\(attribute: "id", FragmentID.tallyPeople(item.id).rawValue)\(attribute: "data-fragment", item.paths.people)>
                <p class="muted">Add friends to share this tally with them.</p>
                <p>\(Button.link("Add friends", href: model.links.friends, style: .secondary, small: true))</p>
                </div>
                """
        }
        let rows = model.friends.map { shareRow($0, selected: $0.permission) }
        return """
            <div\(attribute: "id", FragmentID.tallyPeople(item.id).rawValue)\(attribute: "data-fragment", item.paths.people)>
            <form class="stack" method="post"\(attribute: "action", item.paths.sharing)>
            \(Layout.csrfField(csrf))
            <table class="tally-people"><thead><tr><th scope="col">Friend</th><th scope="col">Can</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            <div>\(Button.secondary("Save sharing", small: true))</div>
            </form>
            </div>
            """
    }

    /// A friend and a choice of not shared, can view or can edit.
    static func shareRow(_ share: Share, selected: String) -> HTML {
        let id = FormField.id(for: "share-\(share.person.id)")
        let options = [("none", "Not shared"), ("view", "Can view"), ("edit", "Can edit")].map { value, text -> HTML in
            "<option\(attribute: "value", value)\(attribute: "selected", when: selected == value)>\(text)</option>"
        }
        return """
            <tr><th scope="row" class="tally-person"><label\(attribute: "for", id)>\(avatar(share.person, label: "", size: 28)) \(names(share.person))</label></th>
            <td><span class="select"><select class="field__input"\(attribute: "id", id)\(attribute: "name", "share-\(share.person.id)")>\(options)</select></span></td></tr>
            """
    }

    /// A person's name with their @username under it, so two friends with
    /// the same name can be told apart.
    static func names(_ person: Person) -> HTML {
        let handle: HTML = person.username.map { "<span class=\"tally-person__handle\">@\($0)</span>" } ?? ""
        return "<span class=\"tally-person__names\"><span class=\"tally-person__name\">\(person.name)</span>\(handle)</span>"
    }

    static func label(_ permission: String) -> String {
        switch permission {
        case "edit": "Can edit"
        case "view": "Can view"
        default: "Not shared"
        }
    }

    // MARK: Creating

    public static func new(
        context: PageContext, form: FormState, friends: [Share], schedules: [(value: String, label: String)], links: Links
    ) -> HTML {
        let friendRows = friends.map { shareRow($0, selected: form.values["share-\($0.person.id)"] ?? "none") }
        let sharing: HTML =
            friends.isEmpty
            ? "<p class=\"muted\">No friends yet. <a\(attribute: "href", links.friends)>Add friends</a> to share tallies with them.</p>"
            : """
                <fieldset class="field"><legend class="field__label">Share with friends</legend>
                \(form.errors["share"].map { "<p class=\"field__error\"><span class=\"visually-hidden\">Error: </span>\($0)</p>" as HTML })
                <table class="tally-people"><thead><tr><th scope="col">Friend</th><th scope="col">Can</th></tr></thead>
                <tbody>\(friendRows)</tbody></table>
                </fieldset>
                """
        return Layout.page(
            title: "New tally", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>New tally</h1><p>What are you counting?</p></header>
                \(form.summary(order: ["name", "count", "schedule", "share"]))
                <form class="card stack" method="post"\(attribute: "action", links.create)>
                \(Layout.csrfField(context.csrfToken))\(form.onceField)
                \(FormField.text(name: "name", label: "Name", value: form.values["name"], hint: "Up to 60 characters, e.g. Coffees.", error: form.errors["name"], required: true, maxLength: 60))
                \(FormField.number(name: "count", label: "Starting count", value: form.values["count"] ?? "0", error: form.errors["count"], min: 0, max: 999_999_999))
                \(FormField.select(name: "schedule", label: "Reset to 0", options: schedules, selected: form.values["schedule"] ?? "off", hint: "At midnight where you are.", error: form.errors["schedule"]))
                \(FormField.checkbox(name: "fireworks", label: "Fireworks when it goes up", checked: (form.values["fireworks"] ?? "on") == "on"))
                \(sharing)
                <div>\(Button.primary("Create tally"))</div>
                </form>
                </section>
                """)
    }
}

extension FragmentID {
    /// A person's whole list of tallies, refetched when one joins or leaves it.
    public static let tallyList = FragmentID("tally-list")
    /// One row of the list.
    public static func tallyRow(_ id: Int64) -> FragmentID { FragmentID("tally-\(id)") }
    /// The full-screen view's count, and its people table.
    public static func tallyFace(_ id: Int64) -> FragmentID { FragmentID("tally-\(id)-face") }
    public static func tallyPeople(_ id: Int64) -> FragmentID { FragmentID("tally-\(id)-people") }
}
