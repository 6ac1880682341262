/// The classified frame around secret dares. (Placeholder markup; the
/// dossier styling replaces it.)
public enum Dossier {
    /// `stamp` is the red mark across the top: "Classified", "Eyes only".
    public static func render(title: String, stamp: String, body: HTML) -> HTML {
        "<section class=\"dossier\"><p class=\"dossier__stamp\">\(stamp)</p><h2>\(title)</h2>\(body)</section>"
    }
}
