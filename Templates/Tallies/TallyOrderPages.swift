/// A person's own order of the list (Move up / Move down, dragging) and
/// the pin that makes a tally a home-screen shortcut.
extension TallyPages {
    /// Move up and Move down as plain forms, so the order changes without
    /// script; shown only while the list is in "My order" (see tallies.css),
    /// which keeps a row refetched alone the same in every sort. The handle
    /// is for dragging, so it shows only with script (tallies.css).
    static func moveControls(_ item: Item, csrfToken: String?) -> HTML {
        guard !item.paths.move.isEmpty else { return "" }
        func button(_ direction: String, _ arrow: String) -> HTML {
            """
            <form method="post"\(attribute: "action", item.paths.move)>\(Layout.csrfField(csrfToken))\
            <button class="button button--small button--secondary tally-move__button" type="submit" name="direction"\(attribute: "value", direction)>\
            <span aria-hidden="true">\(arrow)</span><span class="visually-hidden">Move \(item.name) \(direction)</span></button></form>
            """
        }
        return """
            <div class="tally-move cluster" role="group"\(attribute: "aria-label", "Move \(item.name)")>
            <span class="tally-move__handle" data-drag-handle aria-hidden="true">\(gripIcon)</span>
            \(button("up", "↑"))\(button("down", "↓"))
            </div>
            """
    }

    /// The page script re-sorts a list that names its sort (`data-sort`)
    /// once idle; the person's own order names none, so it is left alone.
    static func listOrder(_ sort: Sort) -> HTML {
        sort == .manual ? " data-order=\"manual\"" : "\(attribute: "data-sort", sort.rawValue)"
    }

    static func pinToggle(_ model: FullModel, csrf: String?) -> HTML {
        toggle(
            action: model.item.paths.pin, field: "pinned", isOn: model.pinned, csrf: csrf,
            note: model.pinned
                ? "Pinned: once Kith is installed, this tally is one of its shortcuts and opens as a large count."
                : "Pin it to make it a shortcut of the installed Kith app, opening as a large count.",
            button: model.pinned ? "Unpin" : "Pin to home screen")
    }

    static let gripIcon: HTML = """
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="currentColor"><circle cx="9" cy="6" r="1.6"/><circle cx="15" cy="6" r="1.6"/><circle cx="9" cy="12" r="1.6"/><circle cx="15" cy="12" r="1.6"/><circle cx="9" cy="18" r="1.6"/><circle cx="15" cy="18" r="1.6"/></svg>
        """
}
