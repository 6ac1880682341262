/// The summary at the top of a form shown again with errors: it is announced
/// at once (`role="alert"`), can take focus (`tabindex="-1"`) and links each
/// message to its field. A message without a field (the form as a whole)
/// is listed without a link. No errors, no summary.
public enum FormErrors {
    public static func render(
        _ errors: [(field: String?, message: String)], title: String = "Please check the form"
    ) -> HTML {
        guard !errors.isEmpty else { return .empty }
        let items = errors.map { error -> HTML in
            guard let field = error.field else { return "<li>\(error.message)</li>" }
            return "<li><a\(attribute: "href", "#" + FormField.id(for: field))>\(error.message)</a></li>"
        }
        return """
            <div class="form-errors" role="alert" tabindex="-1">
            <h2 class="form-errors__title">\(title)</h2>
            <ul class="form-errors__list">
            \(items.joined(separator: "\n"))
            </ul>
            </div>
            """
    }
}
