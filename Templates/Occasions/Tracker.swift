/// The host panel's section for the big day: who has written what (with a
/// nudge for the quiet ones), when gifts may be opened, the shared book and
/// party mode. One section, so the panel's other sections stay as they are.
public enum HostBigDay {
    public struct Person: Sendable {
        public var name: String
        public var role: String
        public var joined: String
        public var dare: String
        public var gift: String
        /// Where a nudge posts, when one may go now.
        public var nudgeAction: String?
        /// Why there is no nudge button, or when the next one may go.
        public var nudgeNote: String?
        public init(name: String, role: String, joined: String, dare: String, gift: String, nudgeAction: String?, nudgeNote: String?) {
            self.name = name
            self.role = role
            self.joined = joined
            self.dare = dare
            self.gift = gift
            self.nudgeAction = nudgeAction
            self.nudgeNote = nudgeNote
        }
    }

    public struct Model: Sendable {
        public var people: [Person]
        /// "Gifts open Sat 12 Dec, 08:00 in Alex's time (Pacific/Auckland)."
        public var revealStatus: String
        /// The reveal field's value (`YYYY-MM-DDTHH:MM`, in `revealZone`).
        public var revealValue: String
        public var revealZoneNote: String
        /// Why the time just typed was refused, beside the field.
        public var revealError: String? = nil
        public var revealAction: String
        public var hasReveal: Bool
        public var bookStatus: String
        public var bookOpenAction: String?
        public var bookCloseAction: String?
        public var bookURL: String
        public var partyURL: String
        public init(
            people: [Person], revealStatus: String, revealValue: String, revealZoneNote: String, revealAction: String, hasReveal: Bool,
            bookStatus: String, bookOpenAction: String?, bookCloseAction: String?, bookURL: String, partyURL: String
        ) {
            self.people = people
            self.revealStatus = revealStatus
            self.revealValue = revealValue
            self.revealZoneNote = revealZoneNote
            self.revealAction = revealAction
            self.hasReveal = hasReveal
            self.bookStatus = bookStatus
            self.bookOpenAction = bookOpenAction
            self.bookCloseAction = bookCloseAction
            self.bookURL = bookURL
            self.partyURL = partyURL
        }
    }

    public static func render(_ model: Model, csrf: String?) -> HTML {
        let rows = model.people.map { person -> HTML in
            let nudge: HTML =
                if let action = person.nudgeAction {
                    OccasionPage.action(action, csrf: csrf, button: Button.secondary("Nudge \(person.name)", small: true))
                } else if let note = person.nudgeNote {
                    "<span class=\"muted\">\(note)</span>"
                } else {
                    ""
                }
            return """
                <li class="tracker__person card">
                <p class="tracker__name"><strong>\(person.name)</strong> <span class="muted">· \(person.role)</span></p>
                <dl class="tracker__facts">
                <div><dt>Joined</dt><dd>\(person.joined)</dd></div>
                <div><dt>Dare</dt><dd>\(person.dare)</dd></div>
                <div><dt>Gift</dt><dd>\(person.gift)</dd></div>
                </dl>
                \(nudge)
                </li>
                """
        }
        let clear: HTML =
            model.hasReveal ? Button.secondary("Remove the time", name: "clear", value: "1", small: true) : ""
        let book: HTML =
            if let open = model.bookOpenAction {
                OccasionPage.action(open, csrf: csrf, button: Button.gold("Open the book"))
            } else if let close = model.bookCloseAction {
                OccasionPage.action(close, csrf: csrf, button: Button.secondary("Close the book"))
            } else {
                ""
            }
        return """
            <section class="stack big-day" aria-labelledby="big-day-heading"><h2 id="big-day-heading">The big day</h2>
            <h3 id="tracker-heading">Who has written</h3>
            <p class="muted">A nudge puts a reminder in their inbox (and on their phone, if they allowed it). One a day per person.</p>
            <ul class="tracker stack" role="list" aria-labelledby="tracker-heading">\(rows)</ul>
            <h3 id="reveal-heading">When gifts open</h3>
            <p>\(model.revealStatus)</p>
            <form class="stack" method="post"\(attribute: "action", model.revealAction)>\(Layout.csrfField(csrf))
            \(FormField.text(name: "reveal_at", label: "Gifts open at", value: model.revealValue, hint: model.revealZoneNote, error: model.revealError, type: .dateTime))
            <div class="cluster">\(Button.secondary("Set the time", small: true))\(clear)</div>
            </form>
            <h3>The book</h3>
            <p>\(model.bookStatus) <a\(attribute: "href", model.bookURL)>See the book</a></p>
            \(book)
            <h3>Party mode</h3>
            <p class="muted">A full-screen slideshow of the unlocked gifts and photos for a TV or a laptop, with a QR code for latecomers.</p>
            <p>\(Button.link("Start party mode", href: model.partyURL, style: .secondary, small: true))</p>
            </section>
            """
    }
}
