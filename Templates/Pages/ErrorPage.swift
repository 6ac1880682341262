/// The page for every error status. It shows the public message only; the
/// cause of a 500 goes to the log, never here.
public enum ErrorPage {
    public static func render(status: Int, title: String, message: String, context: PageContext) -> HTML {
        Layout.page(
            title: title, context: context,
            main: """
                <section class="error-page">
                <p class="error-page__code">\(status)</p>
                <h1>\(title)</h1>
                <p>\(message)</p>
                <p><a class="button"\(attribute: "href", context.links[.home])>Back to Kith</a></p>
                </section>
                """)
    }

    /// A friendly title for a status code.
    public static func title(for status: Int) -> String {
        switch status {
        case 400: "That request didn't make sense"
        case 403: "That isn't allowed"
        case 404: "Nothing here"
        case 405: "Not like that"
        case 408: "That took too long"
        case 413: "That's too big"
        case 414: "That address is too long"
        case 415: "We can't read that kind of file"
        case 429: "Slow down a little"
        case 431: "Too much information"
        case 500: "Something went wrong"
        case 501: "We don't do that"
        case 503: "Kith is busy"
        case 505: "Please use HTTP/1.1"
        default: status >= 500 ? "Something went wrong" : "That didn't work"
        }
    }
}
