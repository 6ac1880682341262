/// What follows an unlocked gift on its page: the moment it was opened (for
/// its giver), the celebrant's thank-you (or, for the celebrant, the form to
/// write one), and the members' reactions. The page model holds only what
/// the viewer may see; an absent part renders nothing.
public struct GiftResponsesView: Sendable {
    public struct Thanks: Sendable {
        /// "Thanks from Alex".
        public var heading: String
        public var words: String
        public var media: [MediaView]
        public var when: String
        public var isoTime: String
        public init(heading: String, words: String, media: [MediaView], when: String, isoTime: String) {
            self.heading = heading
            self.words = words
            self.media = media
            self.when = when
            self.isoTime = isoTime
        }
    }

    public struct ThanksForm: Sendable {
        public var action: String
        /// "Sam": who the thanks go to.
        public var giverName: String
        public var form: FormState
        public var photoLimitMB: Int
        public var voiceLimitMB: Int
        public init(action: String, giverName: String, form: FormState, photoLimitMB: Int, voiceLimitMB: Int) {
            self.action = action
            self.giverName = giverName
            self.form = form
            self.photoLimitMB = photoLimitMB
            self.voiceLimitMB = voiceLimitMB
        }
    }

    public struct Reaction: Sendable {
        /// The value posted: "heart".
        public var key: String
        public var emoji: String
        /// Read aloud: "heart", "laughing".
        public var name: String
        public var count: Int
        public var isMine: Bool
        public init(key: String, emoji: String, name: String, count: Int, isMine: Bool) {
            self.key = key
            self.emoji = emoji
            self.name = name
            self.count = count
            self.isMine = isMine
        }
    }

    public var giftID: Int64
    /// For the giver: "Alex opened your gift on Sat 14 Nov, 18:05."
    public var opened: String?
    public var thanks: Thanks?
    public var thanksForm: ThanksForm?
    /// Where nobody has thanked yet and the viewer cannot: "Alex hasn't said thank you yet."
    public var waiting: String?
    public var reactions: [Reaction]
    /// Nil when the viewer may only look.
    public var reactAction: String?

    public init(
        giftID: Int64, opened: String?, thanks: Thanks?, thanksForm: ThanksForm?, waiting: String?, reactions: [Reaction],
        reactAction: String?
    ) {
        self.giftID = giftID
        self.opened = opened
        self.thanks = thanks
        self.thanksForm = thanksForm
        self.waiting = waiting
        self.reactions = reactions
        self.reactAction = reactAction
    }
}

public enum ThanksViews {
    public static func render(_ view: GiftResponsesView, csrf: String?) -> HTML {
        let opened: HTML = view.opened.map { "<p class=\"gift-responses__opened\" role=\"status\">\($0)</p>" } ?? ""
        let thanks: HTML
        if let given = view.thanks {
            thanks = """
                <article class="thanks stack" aria-labelledby="thanks-heading">
                <h3 id="thanks-heading">\(given.heading)</h3>
                \(MediaViews.render(given.media, csrf: nil))\
                \(given.words.isEmpty ? HTML() : "<p class=\"thanks__words\">\(given.words)</p>")
                <p class="muted"><time\(attribute: "datetime", given.isoTime)>\(given.when)</time></p>
                </article>
                """
        } else if let form = view.thanksForm {
            thanks = self.form(form, csrf: csrf)
        } else {
            thanks = view.waiting.map { "<p class=\"muted\">\($0)</p>" } ?? ""
        }
        return """
            <section class="card stack gift-responses" id="thanks" aria-label="Thanks and reactions">
            \(opened)\(thanks)
            \(reactions(view, csrf: csrf))
            </section>
            """
    }

    /// Words, and one photo or voice note: the same file checks as a gift's
    /// uploads. With the script the voice note can be recorded here.
    static func form(_ model: GiftResponsesView.ThanksForm, csrf: String?) -> HTML {
        let errors = model.form.errors
        let summary: HTML =
            errors.isEmpty
            ? ""
            : "<p class=\"form-errors\" role=\"alert\" tabindex=\"-1\" id=\"thanks-error\">\(errors["words"] ?? errors["photo"] ?? errors["voice"] ?? "")</p>"
        return """
            <div class="thanks-form stack">
            <h3 id="thanks-heading">Say thank you to \(model.giverName)</h3>
            \(summary)
            <form class="stack upload-form" method="post" enctype="multipart/form-data"\(attribute: "action", model.action) data-upload>
            \(Layout.csrfField(csrf))
            \(FormField.textarea(name: "words", label: "Your words", value: model.form.values["words"], error: errors["words"], maxLength: 2000, rows: 3))
            <label class="field__label" for="thanks-photo">A photo, if you like (JPEG, HEIC, PNG, GIF or WebP, up to \(model.photoLimitMB) MB)</label>
            <input class="field__input" id="thanks-photo" type="file" name="photo" accept="image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif">
            <label class="field__label" for="thanks-voice">Or a voice note from a file (up to \(model.voiceLimitMB) MB)</label>
            <input class="field__input" id="thanks-voice" type="file" name="voice" accept="audio/*">
            <div class="cluster">\(Button.primary("Send your thanks", small: true))</div>
            <progress class="upload-form__progress" max="100" value="0" hidden></progress>
            <p class="upload-form__status muted" aria-live="polite"></p>
            </form>
            \(MediaViews.recorder(action: model.action, kind: .voice, title: "Or record a voice note", save: "Send this voice note"))
            </div>
            """
    }

    /// A button per emoji, pressed when the viewer chose it; each says its
    /// count in words. Without the script each press posts and comes back.
    static func reactions(_ view: GiftResponsesView, csrf: String?) -> HTML {
        let items = view.reactions.map { reaction -> HTML in
            let people = reaction.count == 1 ? "1 person" : "\(reaction.count) people"
            let label = "\(people) reacted with \(reaction.name)\(reaction.isMine ? ", including you" : "")"
            let count: HTML = "<span class=\"reactions__count\" aria-hidden=\"true\">\(String(reaction.count))</span>"
            guard view.reactAction != nil else {
                return "<li class=\"reactions__item\"><span class=\"reactions__static\" role=\"img\"\(attribute: "aria-label", label)>\(reaction.emoji) \(count)</span></li>"
            }
            let press = reaction.isMine ? "Take back your \(reaction.name)" : "React with \(reaction.name)"
            return """
                <li class="reactions__item"><button class="reactions__button" type="submit" name="emoji"\(attribute: "value", reaction.key)\
                \(attribute: "aria-pressed", reaction.isMine ? "true" : "false")\(attribute: "aria-label", "\(press). \(label)")>\
                <span aria-hidden="true">\(reaction.emoji)</span> \(count)</button></li>
                """
        }
        let list: HTML = "<ul class=\"reactions__list cluster\" role=\"list\">\(items.joined())</ul>"
        let body: HTML =
            view.reactAction.map {
                "<form method=\"post\"\(attribute: "action", $0) data-enhance\(attribute: "data-target", "reactions-\(view.giftID)")>\(Layout.csrfField(csrf))\(list)</form>"
            } ?? list
        return """
            <div class="reactions"\(attribute: "id", "reactions-\(view.giftID)")>
            <h3 class="visually-hidden">Reactions</h3>
            \(body)
            </div>
            """
    }
}
