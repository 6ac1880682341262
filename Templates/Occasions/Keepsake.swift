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
        public init(title: String, letter: String, media: [MediaView]) {
            self.title = title
            self.letter = letter
            self.media = media
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
            \(MediaViews.gift(media: gift.media, letter: gift.letter, csrf: nil))
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
