/// The keepsake: a whole occasion as one static page that opens from
/// `file://` with the network off. Everything it names sits beside it in
/// the archive (`style.css`, `media/…`); it loads no script and nothing
/// from Kith.
public enum Keepsake {
    public struct Moment: Sendable {
        public var title: String
        public var detail: String?
        public var when: String
        public var isoTime: String
        public var isGift: Bool
        /// A completed challenge's proof: what the celebrant wrote, and its photo.
        public var proofText: String?
        public var proofMedia: [MediaView]
        public init(
            title: String, detail: String?, when: String, isoTime: String, isGift: Bool, proofText: String? = nil,
            proofMedia: [MediaView] = []
        ) {
            self.title = title
            self.detail = detail
            self.when = when
            self.isoTime = isoTime
            self.isGift = isGift
            self.proofText = proofText
            self.proofMedia = proofMedia
        }
    }

    public struct Gift: Sendable {
        public var title: String
        /// The letter or note, in Markdown; empty for none.
        public var letter: String
        /// Photos and players, with paths relative to `index.html`.
        public var media: [MediaView]
        /// The celebrant's thank-you, printed on the gift's own page.
        public var thanks: Thanks?
        /// Each reaction members chose, with how many chose it; none left out
        /// are zero.
        public var reactions: [Reaction]
        public init(title: String, letter: String, media: [MediaView], thanks: Thanks? = nil, reactions: [Reaction] = []) {
            self.title = title
            self.letter = letter
            self.media = media
            self.thanks = thanks
            self.reactions = reactions
        }
    }

    public struct Thanks: Sendable {
        public var heading: String
        public var words: String
        /// Its photo or voice note, with a path relative to `index.html`.
        public var media: [MediaView]
        public init(heading: String, words: String, media: [MediaView]) {
            self.heading = heading
            self.words = words
            self.media = media
        }
    }

    public struct Reaction: Sendable {
        public var emoji: String
        /// What a screen reader says, the emoji's name in words.
        public var name: String
        public var count: Int
        public init(emoji: String, name: String, count: Int) {
            self.emoji = emoji
            self.name = name
            self.count = count
        }
    }

    public struct Model: Sendable {
        public var name: String
        public var kindLabel: String
        public var celebrantName: String
        public var date: String
        public var moments: [Moment]
        public var gifts: [Gift]
        public var message: String?
        public init(
            name: String, kindLabel: String, celebrantName: String, date: String, moments: [Moment], gifts: [Gift], message: String?
        ) {
            self.name = name
            self.kindLabel = kindLabel
            self.celebrantName = celebrantName
            self.date = date
            self.moments = moments
            self.gifts = gifts
            self.message = message
        }
    }

    /// The thank-you and the reactions, inside the gift's article so a
    /// printed page keeps them with the gift they answer.
    static func responses(_ gift: Gift) -> HTML {
        let thanks: HTML = gift.thanks.map { thanks in
            let words: HTML = thanks.words.isEmpty ? "" : "<blockquote class=\"gift__thanks-words\"><p>\(thanks.words)</p></blockquote>"
            return """
                <section class="gift__thanks"><h4>\(thanks.heading)</h4>\(words)\(MediaViews.render(thanks.media, csrf: nil))</section>
                """
        } ?? ""
        let reactions: HTML = gift.reactions.isEmpty ? "" : """
            <ul class="gift__reactions" aria-label="Reactions">\(gift.reactions.map { reaction -> HTML in
                let people = reaction.count == 1 ? "1 person" : "\(reaction.count) people"
                return "<li><span aria-hidden=\"true\">\(reaction.emoji)</span> \(reaction.count)<span class=\"visually-hidden\"> (\(reaction.name), \(people))</span></li>"
            })</ul>
            """
        return "\(thanks)\(reactions)"
    }

    public static func render(_ model: Model) -> HTML {
        let moments = model.moments.map { moment -> HTML in
            let detail: HTML = moment.detail.map { "<span class=\"moment__detail\">\($0)</span>" } ?? ""
            let proof: HTML = moment.proofText.map { "<blockquote class=\"moment__proof\"><p>\($0)</p></blockquote>" } ?? ""
            return """
                <li\(attribute: "class", moment.isGift ? "moment moment--gift" : "moment")><strong>\(moment.title)</strong>\(detail)<time\(attribute: "datetime", moment.isoTime)>\(moment.when)</time>\(proof)\(MediaViews.render(moment.proofMedia, csrf: nil))</li>
                """
        }
        let gifts = model.gifts.map { gift -> HTML in
            """
            <article class="gift"><h3>\(gift.title)</h3>
            \(MediaViews.gift(media: gift.media, letter: gift.letter, csrf: nil))\(responses(gift))
            </article>
            """
        }
        let message: HTML = model.message.map { "<p class=\"finale\">\($0)</p>" } ?? ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(model.name) · a Kith keepsake</title>
            <link rel="stylesheet" href="style.css">
            </head>
            <body>
            <header class="hero">
            <p class="hero__kind">\(model.kindLabel) · \(model.date)</p>
            <h1>\(model.name)</h1>
            <p>For \(model.celebrantName), from everyone who took part.</p>
            \(message)
            </header>
            <main>
            <section aria-labelledby="gifts-heading"><h2 id="gifts-heading">The gifts</h2>
            \(gifts.isEmpty ? "<p>No gifts were unlocked.</p>" as HTML : "\(gifts)" as HTML)
            </section>
            <section aria-labelledby="timeline-heading"><h2 id="timeline-heading">How it went</h2>
            <ol class="moments">\(moments)</ol>
            </section>
            </main>
            <footer><p>Made with Kith — little rituals for your people.</p></footer>
            </body>
            </html>

            """
    }
}
