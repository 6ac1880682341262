/// Buttons and links that look like buttons. The primary button is the
/// purple-to-pink gradient; a page has at most one or two of them. Secondary
/// is the quiet outline, danger is for what cannot be undone, gold is for a
/// reward someone can now afford.
public enum Button {
    public enum Style: String, Sendable {
        case primary, secondary, danger, gold

        var modifier: String? {
            self == .primary ? nil : "button--\(rawValue)"
        }
    }

    public enum ButtonType: String, Sendable {
        case submit, button, reset
    }

    public static func primary(
        _ label: String, type: ButtonType = .submit, name: String? = nil, value: String? = nil, small: Bool = false
    ) -> HTML {
        render(label, style: .primary, type: type, name: name, value: value, small: small)
    }

    public static func secondary(
        _ label: String, type: ButtonType = .submit, name: String? = nil, value: String? = nil, small: Bool = false
    ) -> HTML {
        render(label, style: .secondary, type: type, name: name, value: value, small: small)
    }

    public static func danger(
        _ label: String, type: ButtonType = .submit, name: String? = nil, value: String? = nil, small: Bool = false
    ) -> HTML {
        render(label, style: .danger, type: type, name: name, value: value, small: small)
    }

    public static func gold(
        _ label: String, type: ButtonType = .submit, name: String? = nil, value: String? = nil, small: Bool = false
    ) -> HTML {
        render(label, style: .gold, type: type, name: name, value: value, small: small)
    }

    /// A link styled as a button, for navigation ("Create an occasion").
    /// Actions that change something stay real buttons inside forms.
    public static func link(_ label: String, href: String, style: Style = .primary, small: Bool = false) -> HTML {
        "<a\(attribute: "class", classes(style, small: small))\(attribute: "href", href)>\(label)</a>"
    }

    /// `name` and `value` let one form carry several choices ("Option A",
    /// "Option B") and tell which was pressed.
    public static func render(
        _ label: String, style: Style, type: ButtonType = .submit, name: String? = nil, value: String? = nil,
        small: Bool = false
    ) -> HTML {
        "<button\(attribute: "class", classes(style, small: small))\(attribute: "type", type.rawValue)\(attribute: "name", name)\(attribute: "value", value)>\(label)</button>"
    }

    static func classes(_ style: Style, small: Bool) -> String {
        ["button", style.modifier, small ? "button--small" : nil].compactMap { $0 }.joined(separator: " ")
    }
}
