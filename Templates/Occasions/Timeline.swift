/// The living timeline: a vertical path of nodes with the final badge at its
/// foot. (Placeholder markup; the drawn version replaces it.)
public enum Timeline {
    public static func render(_ view: TimelineView) -> HTML {
        let items = view.entries.map { entry -> HTML in
            "<li class=\"timeline__entry timeline__entry--\(entry.kind.rawValue)\"><strong>\(entry.title)</strong> <time datetime=\"\(entry.isoTime)\">\(entry.when)</time></li>"
        }
        let badge: HTML = view.badge.isOpen ? "<p class=\"badge-final badge-final--open\">\(view.badge.message)</p>" : "<p class=\"badge-final\">Final badge: \(view.badge.unlocked) of \(view.badge.offered) gifts unlocked</p>"
        return "<section class=\"timeline\" aria-label=\"Timeline\"><ol>\(items)</ol>\(badge)</section>"
    }
}
