import CCmark
import Glibc

/// Markdown for letters and descriptions, rendered by libcmark in its safe
/// mode: raw HTML is dropped and `javascript:`/`vbscript:`/`file:` and most
/// `data:` links are blanked by cmark itself. If cmark cannot render, the
/// text is shown escaped — never raw.
///
/// What people write sits inside a page that already has its `h1` and the
/// section's `h2`, so their headings start at `topHeading` (a `# Title` in a
/// letter is an `h3`) and the page outline keeps one `h1` and skips no level.
public enum Markdown {
    public static func render(_ source: String, topHeading: Int = 3) -> HTML {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_SMART
        let length = source.utf8.count
        guard let document = source.withCString({ cmark_parse_document($0, length, options) }) else { return escaped(source) }
        defer { cmark_node_free(document) }
        shiftHeadings(document, by: Int32(min(max(topHeading, 1), 6) - 1))
        guard let rendered = cmark_render_html(document, options) else { return escaped(source) }
        defer { free(rendered) }
        return HTML.unsafeRaw(String(cString: rendered))
    }

    static func escaped(_ source: String) -> HTML {
        "<p>\(source)</p>"
    }

    /// Every heading `shift` levels deeper, no deeper than `h6`.
    static func shiftHeadings(_ document: OpaquePointer, by shift: Int32) {
        guard shift > 0, let iterator = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator), cmark_node_get_type(node) == CMARK_NODE_HEADING
            else { continue }
            cmark_node_set_heading_level(node, min(cmark_node_get_heading_level(node) + shift, 6))
        }
    }
}
