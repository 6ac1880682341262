/// What a list shows before it has anything in it: a small drawing, a
/// friendly sentence and, usually, the one action that fills it.
public enum EmptyState {
    /// `headingLevel` fits the title into the page outline (2 to 6).
    /// `art` replaces the gift where a feature has its own drawing.
    public static func render(title: String, message: String, action: HTML? = nil, headingLevel: Int = 2, art: HTML? = nil) -> HTML {
        let level = min(max(headingLevel, 2), 6)
        let actionPart: HTML = action.map { "\n<div class=\"empty-state__action\">\($0)</div>" } ?? ""
        return """
            <div class="empty-state">
            \(art ?? illustration)
            <h\(level) class="empty-state__title">\(title)</h\(level)>
            <p class="empty-state__message">\(message)</p>\(actionPart)
            </div>
            """
    }

    /// A gift waiting to be opened, with two sparkles that twinkle (and hold
    /// still when motion is reduced). Drawn for Kith; presentation
    /// attributes only, since CSP allows no style attributes.
    static let illustration: HTML = """
        <svg class="empty-state__art" viewBox="0 0 160 128" width="160" height="128" aria-hidden="true">\
        <ellipse cx="80" cy="118" rx="50" ry="6" fill="#7C5CFC" opacity="0.16"/>\
        <rect x="42" y="62" width="76" height="52" rx="12" fill="#7C5CFC"/>\
        <rect x="72" y="62" width="16" height="52" fill="#FF6B9D"/>\
        <g transform="rotate(-8 80 56)"><rect x="36" y="46" width="88" height="20" rx="9" fill="#9B82FF"/>\
        <rect x="72" y="46" width="16" height="20" fill="#FF8FB5"/>\
        <path d="M80 46c-6-13-24-15-24-5 0 6 12 7 24 5zm0 0c6-13 24-15 24-5 0 6-12 7-24 5z" fill="#FF6B9D"/></g>\
        <circle cx="58" cy="86" r="4" fill="#FBF7F4"/><circle cx="102" cy="86" r="4" fill="#FBF7F4"/>\
        <circle cx="53" cy="96" r="4" fill="#FF8FB5" opacity="0.7"/><circle cx="107" cy="96" r="4" fill="#FF8FB5" opacity="0.7"/>\
        <path class="twinkle" d="M128 22q0 8 8 8q-8 0-8 8q0-8-8-8q8 0 8-8z" fill="#F5A623"/>\
        <path class="twinkle" d="M30 34q0 6 6 6q-6 0-6 6q0-6-6-6q6 0 6-6z" fill="#F5A623"/>\
        <circle cx="140" cy="64" r="4" fill="#FF6B9D"/><circle cx="20" cy="74" r="3" fill="#5B8DEF"/>\
        <circle cx="112" cy="10" r="3" fill="#7C5CFC"/></svg>
        """
}
