/// The celebrant's gifts, one card at a time. (Placeholder markup; the
/// carousel replaces it.)
public enum GiftCarousel {
    public static func render(cards: [GiftCardView], balance: Int, csrfToken: String?) -> HTML {
        let items = cards.map { card -> HTML in
            let unlock: HTML = card.unlockAction.map { "<form method=\"post\" action=\"\($0)\">\(Layout.csrfField(csrfToken))<button class=\"button\" type=\"submit\">Unlock for \(card.cost) points</button></form>" } ?? ""
            return "<li class=\"gift-card gift-card--\(card.state.rawValue)\"><p>\(card.kindLabel) from \(card.giverName) · \(card.cost) points</p>\(card.content)\(unlock)</li>"
        }
        return "<section class=\"carousel\" aria-label=\"Gifts\"><ul>\(items)</ul></section>"
    }
}
