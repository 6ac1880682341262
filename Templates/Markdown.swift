import CCmark
import Glibc

/// Markdown for letters and descriptions, rendered by libcmark in its safe
/// mode: raw HTML is dropped and `javascript:`/`vbscript:`/`file:` and most
/// `data:` links are blanked by cmark itself. If cmark cannot render, the
/// text is shown escaped — never raw.
public enum Markdown {
    public static func render(_ source: String) -> HTML {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_SMART
        let length = source.utf8.count
        guard let rendered = source.withCString({ cmark_markdown_to_html($0, length, options) }) else {
            let escaped: HTML = "<p>\(source)</p>"
            return escaped
        }
        defer { free(rendered) }
        return HTML.unsafeRaw(String(cString: rendered))
    }
}
