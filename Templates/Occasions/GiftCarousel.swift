/// The celebrant's gifts on offer, one card at a time.
///
/// Without script it is a row that scrolls sideways and snaps to each card;
/// every card holds a link (and an affordable one its unlock button), so Tab
/// reaches them all and the browser scrolls each into view. With
/// `Public/js/occasions.js` it gains previous/next buttons, arrow keys,
/// swipes, wrapping at both ends and a polite "Gift 2 of 5".
///
/// A card prints the gift's content only when its state is `.unlocked`,
/// whatever the view holds: a locked card shows who gave it and what kind of
/// gift it is, nothing more.
public enum GiftCarousel {
    public static func render(cards: [GiftCardView], balance: Int, csrfToken: String?) -> HTML {
        let balanceLine: HTML = """
            <p class="gift-carousel__balance"\(attribute: "data-balance", String(balance))>\
            Your balance <strong class="gift-carousel__points">\(pointsText(balance))</strong></p>
            """
        guard !cards.isEmpty else {
            return """
                <section class="gift-carousel gift-carousel--empty" aria-label="Gifts">
                \(balanceLine)
                \(EmptyState.render(title: "No gifts on offer yet", message: "When a gift is ready for you, it appears here, waiting to be unlocked."))
                </section>
                """
        }
        let items = cards.enumerated().map { index, card in
            self.card(card, position: index + 1, of: cards.count, balance: balance, csrfToken: csrfToken)
        }
        // The controls and the live region are for the script; without it
        // they stay hidden and the row scrolls on its own.
        return """
            <section class="gift-carousel" aria-label="Gifts" aria-roledescription="carousel" data-carousel>
            <div class="gift-carousel__head">
            \(balanceLine)
            <div class="gift-carousel__controls" data-carousel-controls hidden>\
            <button class="button button--secondary button--small gift-carousel__step" type="button" data-carousel-step="-1">\
            <span aria-hidden="true">&larr;</span> Previous<span class="visually-hidden"> gift</span></button>\
            <button class="button button--secondary button--small gift-carousel__step" type="button" data-carousel-step="1">\
            Next<span class="visually-hidden"> gift</span> <span aria-hidden="true">&rarr;</span></button>\
            </div>
            </div>
            <ul class="gift-carousel__track" tabindex="0" aria-label="Gifts on offer, scroll sideways" data-carousel-track>
            \(items.joined(separator: "\n"))
            </ul>
            <p class="visually-hidden" aria-live="polite" aria-atomic="true" data-carousel-status></p>
            </section>
            """
    }

    static func card(_ card: GiftCardView, position: Int, of count: Int, balance: Int, csrfToken: String?) -> HTML {
        let state = card.state
        // Locked is frosted glass; affordable pulses gold (and holds a still
        // gold glow when motion is reduced); unlocked is plain, full colour.
        let look: String? =
            switch state {
            case .locked: "frosted"
            case .affordable: "pulse-gold"
            case .unlocked: nil
            }
        let classes = ["gift-card", "gift-card--\(state.rawValue)", look].compactMap { $0 }.joined(separator: " ")
        let label = "Gift \(position) of \(count): \(card.kindLabel) from \(card.giverName)"
        return """
            <li\(attribute: "class", classes) tabindex="-1"\(attribute: "aria-label", label)\(attribute: "data-gift", String(card.id))>
            <div class="gift-card__giver">\
            <img class="gift-card__avatar"\(attribute: "src", card.giverAvatarURL) alt="" width="48" height="48" loading="lazy" draggable="false">\
            <p><span class="gift-card__kind">\(card.kindLabel)</span> <span class="gift-card__from">from <strong>\(card.giverName)</strong></span></p>\
            </div>
            <p class="gift-card__cost"><span class="badge badge--gold">\(pointsText(card.cost))</span> \(stateLine(card, balance: balance))</p>
            \(body(card, csrfToken: csrfToken))
            \(card.detailURL.isEmpty ? "" : "<a class=\"gift-card__link\"\(attribute: "href", card.detailURL) draggable=\"false\">\(linkText(state))<span class=\"visually-hidden\">: \(card.kindLabel) from \(card.giverName)</span></a>" as HTML)
            </li>
            """
    }

    static func stateLine(_ card: GiftCardView, balance: Int) -> HTML {
        switch card.state {
        case .locked:
            let missing = card.cost - balance
            let hint = missing > 0 ? "Locked: \(pointsText(missing)) to go" : "Locked"
            return "<span class=\"gift-card__state\">\(hint)</span>"
        case .affordable:
            return "<span class=\"gift-card__state\">You can unlock this</span>"
        case .unlocked:
            return "<span class=\"gift-card__state\">Unlocked</span>"
        }
    }

    /// The part that differs by state. Content only ever appears for an
    /// unlocked gift; the unlock form only for an affordable one the viewer
    /// may unlock.
    static func body(_ card: GiftCardView, csrfToken: String?) -> HTML {
        switch card.state {
        case .unlocked:
            guard let content = card.content else { return "" }
            return """
                <div class="gift-card__content" tabindex="0" role="region"\(attribute: "aria-label", "\(card.kindLabel) from \(card.giverName)")>\(content)</div>
                """
        case .affordable, .locked:
            guard card.state == .affordable, let action = card.unlockAction else { return "" }
            return """
                <form class="gift-card__unlock" method="post"\(attribute: "action", action)>\(Layout.csrfField(csrfToken))\
                <button class="button button--gold" type="submit">Unlock for \(pointsText(card.cost))</button></form>
                """
        }
    }

    static func linkText(_ state: GiftCardView.State) -> String {
        state == .unlocked ? "Open this gift" : "About this gift"
    }

    static func pointsText(_ points: Int) -> String {
        "\(points) \(abs(points) == 1 ? "point" : "points")"
    }
}
