/// What a destructive action will do, in the words the server chose from
/// what is in the database now ("Delete Coffees?" "Its count of 41 …").
///
/// The same value renders three ways: as data attributes on the page's own
/// form (the script's `<dialog>` reads them, so asking needs no round trip),
/// as the confirm page a plain post without confirmation is answered with,
/// and as the token that post must carry. The token is a fingerprint of the
/// sentence, so a confirmation counts only for the consequence it was shown:
/// when the numbers change in between, the server asks again in new words.
public struct Confirmation: Sendable, Equatable {
    /// "Delete Coffees?"
    public var question: String
    /// "Its count of 41 and its history are gone for everyone it's shared with."
    public var consequence: String
    /// The destructive button's label: "Delete tally".
    public var button: String

    public init(_ question: String, _ consequence: String, button: String) {
        self.question = question
        self.consequence = consequence
        self.button = button
    }

    public var sentence: String { consequence.isEmpty ? question : question + " " + consequence }

    /// FNV-1a over the sentence's UTF-8: not a secret (the CSRF token guards
    /// the post), only a check that what was confirmed is what happens.
    public var token: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sentence.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The one pattern for destructive actions: a form that asks first, the
/// confirm page, and the undo notice. See `Public/js/confirm.js` for the
/// dialog.
public enum Confirm {
    /// The field a confirmed post carries, holding `Confirmation.token`.
    public static let field = "confirmed"

    /// The attributes that mark a form as destructive, for forms built by
    /// hand (`<form … \(Confirm.attributes(c))>`).
    public static func attributes(_ confirmation: Confirmation) -> HTML {
        """
        \(attribute: "data-confirm", confirmation.question)\(attribute: "data-confirm-detail", confirmation.consequence)\
        \(attribute: "data-confirm-button", confirmation.button)\(attribute: "data-confirm-token", confirmation.token)
        """
    }

    /// A destructive button in its own form. It posts without the token, so
    /// without script the server answers with the confirm page; with script
    /// the dialog asks and adds the token.
    public static func button(
        _ label: String? = nil, action: String, csrf: String?, _ confirmation: Confirmation, fields: [(String, String)] = [],
        small: Bool = true, formClass: String = "inline-form"
    ) -> HTML {
        """
        <form\(attribute: "class", formClass) method="post"\(attribute: "action", action)\(attributes(confirmation))>\
        \(Layout.csrfField(csrf))\(hidden(fields))\(Button.danger(label ?? confirmation.button, small: small))</form>
        """
    }

    /// The page a destructive post without confirmation is answered with:
    /// the sentence, the real post (the same fields again, with the token),
    /// and a way back that changes nothing.
    public static func page(
        context: PageContext, _ confirmation: Confirmation, action: String, fields: [(String, String)], cancel: String
    ) -> HTML {
        Layout.page(
            title: confirmation.question, context: context,
            main: """
                <section class="container container--narrow stack confirm-page" aria-labelledby="confirm-title">
                <div class="card stack">
                <h1 id="confirm-title" class="confirm-page__question">\(confirmation.question)</h1>
                \(consequence(confirmation))
                <form class="cluster confirm-page__actions" method="post"\(attribute: "action", action)>
                \(Layout.csrfField(context.csrfToken))\(hidden(fields))<input type="hidden"\(attribute: "name", field)\(attribute: "value", confirmation.token)>
                \(Button.danger(confirmation.button))
                \(Button.link("Cancel", href: cancel, style: .secondary))
                </form>
                </div>
                </section>
                """)
    }

    static func consequence(_ confirmation: Confirmation) -> HTML {
        confirmation.consequence.isEmpty ? "" : "<p class=\"confirm-page__consequence\">\(confirmation.consequence)</p>"
    }

    static func hidden(_ fields: [(String, String)]) -> HTML {
        let inputs = fields.map { name, value -> HTML in "<input type=\"hidden\"\(attribute: "name", name)\(attribute: "value", value)>" }
        return "\(inputs)"
    }

    // MARK: Undo

    /// "Coffees deleted. Undo": shown only to the person who acted, on the
    /// page they land on, while the undo window is open.
    public struct UndoNotice: Sendable, Equatable {
        public var message: String
        /// The undo post.
        public var action: String
        /// Seconds left in the window when the page was drawn; the script
        /// takes the notice away when they run out.
        public var secondsLeft: Int64
        public init(message: String, action: String, secondsLeft: Int64) {
            self.message = message
            self.action = action
            self.secondsLeft = secondsLeft
        }
    }

    /// A status region holding the message and its Undo button (a post with
    /// CSRF, so it works without script). Renders nothing without a notice.
    public static func undo(_ notice: UndoNotice?, csrf: String?) -> HTML {
        guard let notice else { return "" }
        return """
            <div class="undo-notice" role="status" data-undo-notice\(attribute: "data-undo-seconds", String(notice.secondsLeft))>
            <form class="undo-notice__form" method="post"\(attribute: "action", notice.action)>\(Layout.csrfField(csrf))\
            <p class="undo-notice__message">\(notice.message)</p>\(Button.secondary("Undo", small: true))</form>
            </div>
            """
    }
}
