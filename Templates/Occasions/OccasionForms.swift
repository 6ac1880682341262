/// Creating an occasion, writing a challenge, a dare and a gift: forms that
/// come back with the person's input and a message next to each field.
public enum OccasionForms {
    public static func newOccasion(context: PageContext, form: FormState, kinds: [(value: String, label: String)], action: String) -> HTML {
        Layout.page(
            title: "New occasion", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Create an occasion</h1>
                <p class="muted">A celebration your people make together: they write challenges and gifts, the person you celebrate earns and opens them.</p></header>
                \(form.summary(order: ["name", "kind", "celebrant_name", "date", "host_name"]))
                <form class="card stack" method="post"\(attribute: "action", action) novalidate>
                \(Layout.csrfField(context.csrfToken))\(form.onceField)
                \(FormField.text(name: "name", label: "Occasion name", value: form.values["name"], hint: "What everyone will see, e.g. “Alex turns 30”.", error: form.errors["name"], required: true, maxLength: 80))
                \(FormField.select(name: "kind", label: "Type", options: kinds, selected: form.values["kind"], error: form.errors["kind"], required: true, prompt: "Choose one…"))
                \(FormField.text(name: "celebrant_name", label: "Who are you celebrating?", value: form.values["celebrant_name"], error: form.errors["celebrant_name"], required: true, maxLength: 60))
                \(FormField.text(name: "date", label: "Date", value: form.values["date"], error: form.errors["date"], type: .date, required: true))
                \(FormField.text(name: "host_name", label: "Your name here", value: form.values["host_name"], hint: "How the others will see you in this occasion.", error: form.errors["host_name"], required: true, maxLength: 60, autocomplete: "nickname"))
                <div class="cluster">\(Button.primary("Create occasion"))\(Button.link("Cancel", href: context.links[.home], style: .secondary))</div>
                </form>
                </section>
                """)
    }

    /// The host's challenge form, new or edited.
    public static func challengeFields(form: FormState) -> HTML {
        let difficulties: [(value: String, label: String)] = [("easy", "Easy"), ("medium", "Medium"), ("hard", "Hard")]
        let categories: [(value: String, label: String)] = [
            ("physical", "Physical"), ("social", "Social"), ("creative", "Creative"), ("sentimental", "Sentimental"),
            ("adventure", "Adventure"),
        ]
        return """
            \(form.summary(order: ["title", "description", "option_b", "points", "difficulty", "category"]))
            \(FormField.text(name: "title", label: "Challenge", value: form.values["title"], hint: "What to do, e.g. “Sing happy birthday to a stranger”.", error: form.errors["title"], required: true, maxLength: 120))
            \(FormField.textarea(name: "description", label: "Details (optional)", value: form.values["description"], hint: "Markdown works: **bold**, lists, links.", error: form.errors["description"], maxLength: 4000, rows: 4))
            \(FormField.text(name: "option_b", label: "Option B (optional)", value: form.values["option_b"], hint: "Makes it a 2-in-1: the celebrant picks one.", error: form.errors["option_b"], maxLength: 120))
            <div class="grid grid--3">
            \(FormField.number(name: "points", label: "Points", value: form.values["points"] ?? "10", error: form.errors["points"], required: true, min: 1, max: 1000))
            \(FormField.select(name: "difficulty", label: "Difficulty", options: difficulties, selected: form.values["difficulty"] ?? "medium", error: form.errors["difficulty"]))
            \(FormField.select(name: "category", label: "Category", options: categories, selected: form.values["category"] ?? "social", error: form.errors["category"]))
            </div>
            """
    }

    public static func editChallenge(
        context: PageContext, header: OccasionPage.Header, form: FormState, action: String, deleteAction: String,
        deleteConfirmation: Confirmation
    ) -> HTML {
        OccasionPage.render(
            title: "Edit challenge", context: context, header: header, tab: .host, livePath: nil,
            body: """
                <section class="card stack">
                <h2>Edit challenge</h2>
                <form class="stack" method="post"\(attribute: "action", action) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(challengeFields(form: form))
                <div class="cluster">\(Button.primary("Save challenge"))\(Button.link("Back to the host panel", href: header.paths.host, style: .secondary))</div>
                </form>
                \(Confirm.button(action: deleteAction, csrf: context.csrfToken, deleteConfirmation))
                </section>
                """)
    }

    public struct DareModel: Sendable {
        public var form: FormState
        public var minPoints: Int
        public var maxPoints: Int
        /// Found by the celebrant (or done): it can no longer change.
        public var isSealed: Bool
        public var exists: Bool
        public init(form: FormState, minPoints: Int, maxPoints: Int, isSealed: Bool, exists: Bool) {
            self.form = form
            self.minPoints = minPoints
            self.maxPoints = maxPoints
            self.isSealed = isSealed
            self.exists = exists
        }
    }

    /// A contributor's one secret dare, written in the dossier.
    public static func dare(context: PageContext, header: OccasionPage.Header, model: DareModel, action: String) -> HTML {
        let form = model.form
        let content: HTML
        if model.isSealed {
            content = """
                <p class="dossier__meta">Status: delivered. The file is sealed.</p>
                <h3>\(form.values["title"] ?? "")</h3>
                \(Markdown.render(form.values["description"] ?? ""))
                <p class="dossier__meta">Worth \(OccasionPage.points(Int(form.values["points"] ?? "") ?? 0))</p>
                """
        } else {
            content = """
                <p class="dossier__meta">Only you and the host can read this until \(header.celebrantName) finds it.</p>
                \(form.summary(order: ["title", "description", "points"]))
                <form class="stack" method="post"\(attribute: "action", action) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.text(name: "title", label: "The dare", value: form.values["title"], hint: "One line: what must be done.", error: form.errors["title"], required: true, maxLength: 120))
                \(FormField.textarea(name: "description", label: "Briefing (optional)", value: form.values["description"], hint: "Markdown works.", error: form.errors["description"], maxLength: 4000, rows: 4))
                \(FormField.number(name: "points", label: "Points (\(model.minPoints)–\(model.maxPoints))", value: form.values["points"] ?? String(model.minPoints), hint: "The host may adjust it.", error: form.errors["points"], required: true, min: model.minPoints, max: model.maxPoints))
                <div class="cluster">\(Button.primary(model.exists ? "Update the file" : "File the dare"))</div>
                </form>
                """
        }
        return OccasionPage.render(
            title: "Your secret dare", context: context, header: header, tab: .overview, livePath: nil,
            body: Dossier.render(title: "Your secret dare", stamp: "Classified", body: content))
    }

    public struct GiftModel: Sendable {
        public var form: FormState
        /// "draft", "submitted", "on_offer", "unlocked"; nil before anything is saved.
        public var state: String?
        public var costLabel: String?
        public var saveAction: String
        public var submitAction: String
        public var withdrawAction: String
        /// The gift's photos, video or voice note, rendered.
        public var media: HTML
        /// The upload forms, while the gift can still change.
        public var uploads: HTML
        public var hasMedia: Bool
        public init(
            form: FormState, state: String?, costLabel: String?, saveAction: String, submitAction: String, withdrawAction: String,
            media: HTML = "", uploads: HTML = "", hasMedia: Bool = false
        ) {
            self.media = media
            self.uploads = uploads
            self.hasMedia = hasMedia
            self.form = form
            self.state = state
            self.costLabel = costLabel
            self.saveAction = saveAction
            self.submitAction = submitAction
            self.withdrawAction = withdrawAction
        }
    }

    /// The author's gift: a letter while it is a draft, then its status.
    public static func gift(context: PageContext, header: OccasionPage.Header, model: GiftModel) -> HTML {
        let form = model.form
        let status: HTML
        let editor: HTML
        switch model.state {
        case nil, "draft":
            status =
                model.state == nil
                ? "<p class=\"muted\">Write \(header.celebrantName) a letter, or give photos, a video or a voice note. Only you can see it while it's a draft.</p>"
                : "<p class=\"muted\"><strong>Draft.</strong> Only you can see it. Send it to the host when it's ready; after that it can't be changed.</p>"
            let submit: HTML =
                model.state == "draft"
                ? OccasionPage.action(model.submitAction, csrf: context.csrfToken, button: Button.gold("Send to the host"))
                : ""
            editor = """
                \(form.summary(order: ["body"]))
                <form class="stack" method="post"\(attribute: "action", model.saveAction) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.textarea(name: "body", label: model.hasMedia ? "A note to go with it (optional)" : "Your letter", value: form.values["body"], hint: "Markdown works: **bold**, *italics*, lists.", error: form.errors["body"], required: !model.hasMedia, maxLength: 20000, rows: model.hasMedia ? 5 : 12))
                <div class="cluster">\(Button.primary("Save draft"))</div>
                </form>
                \(model.media)
                \(model.uploads)
                \(submit)
                """
        case "submitted":
            status = "<p><strong>With the host.</strong> They'll set its price and put it on offer. Until then you can take it back to edit.</p>"
            editor = """
                \(model.media)<article class="card letter">\(Markdown.render(form.values["body"] ?? ""))</article>
                \(OccasionPage.action(model.withdrawAction, csrf: context.csrfToken, button: Button.secondary("Take it back to edit")))
                """
        case "on_offer":
            status = "<p><strong>On offer</strong>\(model.costLabel.map { " for \($0)" } ?? ""). \(header.celebrantName) can unlock it with points.</p>"
            editor = "\(model.media)<article class=\"card letter\">\(Markdown.render(form.values["body"] ?? ""))</article>"
        default:
            status = "<p><strong>Unlocked!</strong> \(header.celebrantName) has opened your gift.</p>"
            editor = "\(model.media)<article class=\"card letter\">\(Markdown.render(form.values["body"] ?? ""))</article>"
        }
        return OccasionPage.render(
            title: "Your gift", context: context, header: header, tab: .gifts, livePath: nil,
            body: """
                <section class="stack gift-editor" aria-labelledby="gift-heading">
                <h2 id="gift-heading">Your gift for \(header.celebrantName)</h2>
                \(status)
                \(editor)
                </section>
                """)
    }
}
