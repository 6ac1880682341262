/// The classified frame around secret dares: navy paper, a red stamp,
/// typewriter type and scan lines (one CSS gradient, see `.dossier::after`
/// in app.css and `Public/css/timeline.css`). It frames the contributor's
/// dare form and the celebrant's classified view; `body` is whatever the
/// caller renders inside (a form, dare cards).
public enum Dossier {
    /// `stamp` is the red mark across the top: "Classified", "Eyes only".
    public static func render(title: String, stamp: String, body: HTML) -> HTML {
        """
        <section class="dossier dossier--framed">
        <header class="dossier__head">\
        <p class="stamp dossier__stamp">\(stamp)</p>\
        <h2 class="dossier__title">\(title)</h2>\
        </header>
        <div class="dossier__body stack">
        \(body)
        </div>
        </section>
        """
    }
}
