/// Labelled form controls, each with its hint and its error wired for
/// assistive technology: the control's id is `field-<name>`, the hint's
/// `field-<name>-hint`, the error's `field-<name>-error`; `aria-describedby`
/// lists whichever of the two is present, and a field with an error carries
/// `aria-invalid="true"`. The error is announced with an "Error:" prefix and
/// drawn with an icon, so it is never told by colour alone.
///
/// The order inside a field is label, hint, error, control: the hint and
/// error are read and seen before typing starts, not discovered after.
public enum FormField {
    public enum InputType: String, Sendable {
        case text, password, email, number, search, date, tel, url
        case dateTime = "datetime-local"
    }

    /// The id of the control for a field name. Anything other than ASCII
    /// letters, digits, `-` and `_` becomes `-`, so the id works unescaped in
    /// a `#fragment` link (the error summary links to it).
    public static func id(for name: String) -> String {
        var id = "field-"
        for scalar in name.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_": id.unicodeScalars.append(scalar)
            default: id.unicodeScalars.append("-")
            }
        }
        return id
    }

    /// `maxLength` is the server's limit in Characters (what a reader counts
    /// as one letter or emoji, `TextPolicy` in the app), but a browser's
    /// `maxlength` counts UTF-16 code units: ten family emoji are 110 of them,
    /// so a `maxlength` of 60 would stop someone mid-name that the server
    /// accepts. The attribute is therefore written as the most code units
    /// the server could ever accept for that many Characters (its limit of
    /// code points per Character, each at most two units): a backstop
    /// against pasting a novel, never a block on a name that fits. Whether it
    /// fits is the server's call, with its message beside the field.
    public static let utf16UnitsPerCharacter = 24

    static func browserMaxLength(_ characters: Int?) -> String? {
        characters.map { String($0 * utf16UnitsPerCharacter) }
    }

    /// A single-line input. A password field never echoes its value back
    /// into the page, whatever is passed.
    public static func text(
        name: String, label: String, value: String? = nil, hint: String? = nil, error: String? = nil,
        type: InputType = .text, required: Bool = false, maxLength: Int? = nil,
        autocomplete: String? = nil, inputMode: String? = nil, placeholder: String? = nil
    ) -> HTML {
        let wiring = Wiring(name: name, hint: hint, error: error)
        let shownValue = type == .password ? nil : value
        let control: HTML =
            "<input class=\"field__input\"\(attribute: "id", wiring.id)\(attribute: "name", name)\(attribute: "type", type.rawValue)\(attribute: "value", shownValue)\(attribute: "required", when: required)\(attribute: "maxlength", browserMaxLength(maxLength))\(attribute: "autocomplete", autocomplete)\(attribute: "inputmode", inputMode)\(attribute: "placeholder", placeholder)\(wiring.attributes)>"
        return stacked(wiring, label: label, control: control)
    }

    /// A number input. The value stays a string so that what someone typed
    /// comes back as typed when the form is shown again with an error.
    public static func number(
        name: String, label: String, value: String? = nil, hint: String? = nil, error: String? = nil,
        required: Bool = false, min: Int? = nil, max: Int? = nil, step: Int? = nil
    ) -> HTML {
        let wiring = Wiring(name: name, hint: hint, error: error)
        let control: HTML =
            "<input class=\"field__input\"\(attribute: "id", wiring.id)\(attribute: "name", name) type=\"number\" inputmode=\"numeric\"\(attribute: "value", value)\(attribute: "required", when: required)\(attribute: "min", min.map(String.init))\(attribute: "max", max.map(String.init))\(attribute: "step", step.map(String.init))\(wiring.attributes)>"
        return stacked(wiring, label: label, control: control)
    }

    /// A multi-line input. A newline always follows the opening tag: the HTML
    /// parser drops the first one, so a value that starts with a blank line
    /// keeps it.
    public static func textarea(
        name: String, label: String, value: String? = nil, hint: String? = nil, error: String? = nil,
        required: Bool = false, maxLength: Int? = nil, rows: Int = 6, placeholder: String? = nil
    ) -> HTML {
        let wiring = Wiring(name: name, hint: hint, error: error)
        let control: HTML =
            "<textarea class=\"field__input\"\(attribute: "id", wiring.id)\(attribute: "name", name) rows=\"\(rows)\"\(attribute: "required", when: required)\(attribute: "maxlength", browserMaxLength(maxLength))\(attribute: "placeholder", placeholder)\(wiring.attributes)>\n\(value ?? "")</textarea>"
        return stacked(wiring, label: label, control: control)
    }

    /// A drop-down. `prompt` adds a first, empty option ("Choose one…"),
    /// which a required select refuses to submit. Without a prompt a select
    /// always has a value, so `required` is written only with one (HTML also
    /// forbids it otherwise).
    public static func select(
        name: String, label: String, options: [(value: String, label: String)], selected: String? = nil,
        hint: String? = nil, error: String? = nil, required: Bool = false, prompt: String? = nil
    ) -> HTML {
        let wiring = Wiring(name: name, hint: hint, error: error)
        var items: [HTML] = []
        if let prompt {
            items.append("<option value=\"\"\(attribute: "selected", when: selected == nil)>\(prompt)</option>")
        }
        for option in options {
            items.append(
                "<option\(attribute: "value", option.value)\(attribute: "selected", when: option.value == selected)>\(option.label)</option>"
            )
        }
        let control: HTML = """
            <span class="select"><select class="field__input"\(attribute: "id", wiring.id)\(attribute: "name", name)\(attribute: "required", when: required && prompt != nil)\(wiring.attributes)>
            \(items.joined(separator: "\n"))
            </select></span>
            """
        return stacked(wiring, label: label, control: control)
    }

    /// A checkbox, its label beside it and the hint and error beneath.
    public static func checkbox(
        name: String, label: String, checked: Bool = false, value: String = "on",
        hint: String? = nil, error: String? = nil, required: Bool = false
    ) -> HTML {
        let wiring = Wiring(name: name, hint: hint, error: error)
        var parts: [HTML] = [
            "<input class=\"field__checkbox\"\(attribute: "id", wiring.id)\(attribute: "name", name) type=\"checkbox\"\(attribute: "value", value)\(attribute: "checked", when: checked)\(attribute: "required", when: required)\(wiring.attributes)>",
            "<label class=\"field__label\"\(attribute: "for", wiring.id)>\(label)</label>",
        ]
        parts.append(contentsOf: wiring.messages)
        return """
            <div class="\(wiring.fieldClass("field--checkbox"))">
            \(parts.joined(separator: "\n"))
            </div>
            """
    }

    /// One choice among a few, as radio buttons in a fieldset whose legend is
    /// the question. The first radio takes the field's id, so the error
    /// summary's link lands on the group.
    public static func radios(
        name: String, legend: String, options: [(value: String, label: String)], selected: String? = nil,
        hint: String? = nil, error: String? = nil, required: Bool = false
    ) -> HTML {
        let wiring = Wiring(name: name, hint: hint, error: error)
        let choices = options.enumerated().map { index, option -> HTML in
            let id = index == 0 ? wiring.id : "\(wiring.id)-\(index + 1)"
            return
                "<label class=\"choice\"><input class=\"choice__input\"\(attribute: "id", id)\(attribute: "name", name) type=\"radio\"\(attribute: "value", option.value)\(attribute: "checked", when: option.value == selected)\(attribute: "required", when: required)> <span>\(option.label)</span></label>"
        }
        var parts: [HTML] = ["<legend class=\"field__label\">\(legend)</legend>"]
        parts.append(contentsOf: wiring.messages)
        parts.append("<div class=\"choices\">\n\(choices.joined(separator: "\n"))\n</div>")
        return """
            <fieldset class="\(wiring.fieldClass("field--choices"))"\(attribute: "aria-describedby", wiring.describedBy)>
            \(parts.joined(separator: "\n"))
            </fieldset>
            """
    }

    /// Label, hint, error, control: the layout of every field but the
    /// checkbox and the radio group.
    private static func stacked(_ wiring: Wiring, label: String, control: HTML) -> HTML {
        var parts: [HTML] = ["<label class=\"field__label\"\(attribute: "for", wiring.id)>\(label)</label>"]
        parts.append(contentsOf: wiring.messages)
        parts.append(control)
        return """
            <div class="\(wiring.fieldClass(nil))">
            \(parts.joined(separator: "\n"))
            </div>
            """
    }

    /// The ids and ARIA attributes that tie a control to its hint and error.
    private struct Wiring {
        let id: String
        let hint: String?
        let error: String?

        init(name: String, hint: String?, error: String?) {
            id = FormField.id(for: name)
            self.hint = hint
            self.error = error
        }

        var hintID: String { id + "-hint" }
        var errorID: String { id + "-error" }

        var describedBy: String? {
            let ids = [hint.map { _ in hintID }, error.map { _ in errorID }].compactMap { $0 }
            return ids.isEmpty ? nil : ids.joined(separator: " ")
        }

        var attributes: HTML {
            "\(attribute: "aria-describedby", describedBy)\(attribute: "aria-invalid", error == nil ? nil : "true")"
        }

        var messages: [HTML] {
            var messages: [HTML] = []
            if let hint {
                messages.append("<p class=\"field__hint\"\(attribute: "id", hintID)>\(hint)</p>")
            }
            if let error {
                messages.append(
                    "<p class=\"field__error\"\(attribute: "id", errorID)><span class=\"visually-hidden\">Error: </span>\(error)</p>"
                )
            }
            return messages
        }

        func fieldClass(_ modifier: String?) -> String {
            ["field", modifier, error == nil ? nil : "field--invalid"].compactMap { $0 }.joined(separator: " ")
        }
    }
}
