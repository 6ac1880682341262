/// Party mode: the unlocked gifts and proof photos as a full-screen,
/// auto-advancing slideshow for a TV or a laptop, with a QR code for
/// latecomers. Without script it is a plain list of every slide, one under
/// the other; `party.js` shows one at a time and adds the controls.
public enum PartyPage {
    public struct Slide: Sendable {
        /// Stable across live refreshes, so the show keeps its place.
        public var id: String
        public var title: String
        public var detail: String?
        public var content: HTML
        public init(id: String, title: String, detail: String?, content: HTML) {
            self.id = id
            self.title = title
            self.detail = detail
            self.content = content
        }
    }

    public struct Model: Sendable {
        public var name: String
        public var celebrantName: String
        public var slides: [Slide]
        /// The contributor link and its QR code, when the viewer may share it.
        public var joinLink: String?
        public var joinQRCode: HTML
        public var leaveURL: String
        public var path: String
        public init(
            name: String, celebrantName: String, slides: [Slide], joinLink: String?, joinQRCode: HTML, leaveURL: String, path: String
        ) {
            self.name = name
            self.celebrantName = celebrantName
            self.slides = slides
            self.joinLink = joinLink
            self.joinQRCode = joinQRCode
            self.leaveURL = leaveURL
            self.path = path
        }
    }

    /// Seconds each slide stays before the next.
    public static let secondsPerSlide = 7

    public static func render(context: PageContext, model: Model) -> HTML {
        let count = model.slides.count
        let slides = model.slides.enumerated().map { index, slide -> HTML in
            """
            <section class="party__slide stack"\(attribute: "id", slide.id) data-party-slide aria-roledescription="slide"\(attribute: "aria-label", "\(index + 1) of \(count)")>
            <h2 class="party__title">\(slide.title)</h2>
            \(slide.detail.map { "<p class=\"party__detail\">\($0)</p>" as HTML } ?? "")
            <div class="party__content">\(slide.content)</div>
            </section>
            """
        }
        let empty: HTML =
            model.slides.isEmpty
            ? "<p class=\"party__empty\" data-party-empty>Nothing unlocked yet. Each gift \(model.celebrantName) opens joins the show here.</p>"
            : ""
        let join: HTML = model.joinLink.map { link in
            """
            <aside class="party__join" aria-labelledby="party-join-heading">
            <h2 class="party__join-title" id="party-join-heading">Join in</h2>
            \(model.joinQRCode)
            <p class="party__join-link mono">\(link)</p>
            </aside>
            """
        } ?? ""
        return Layout.page(
            title: "Party mode · \(model.name)", context: context,
            main: """
                <div class="party"\(attribute: "data-party", String(secondsPerSlide))\(attribute: "data-leave", model.leaveURL)\(attribute: "data-ending-gone", "You're no longer in \(model.name)")>
                <div class="party__top"><h1 class="party__name">\(model.name)</h1>
                <a class="party__leave"\(attribute: "href", model.leaveURL)>Leave party mode</a></div>
                <section class="party__stage" aria-roledescription="slideshow"\(attribute: "aria-label", "Gifts for \(model.celebrantName)")\(attribute: "id", FragmentID.occasionLive.rawValue)\(attribute: "data-fragment", model.path)>
                \(empty)\(slides)
                </section>
                <div class="party__controls cluster" data-party-controls hidden>
                <button class="button button--secondary button--small" type="button" data-party-prev>Previous</button>
                <button class="button button--secondary button--small" type="button" data-party-pause aria-pressed="false">Pause</button>
                <button class="button button--secondary button--small" type="button" data-party-next>Next</button>
                <p class="party__keys muted">Space or → next · ← back · P pause · Esc leave</p>
                <p class="visually-hidden" role="status" data-party-status></p>
                </div>
                \(join)
                </div>
                """)
    }
}
