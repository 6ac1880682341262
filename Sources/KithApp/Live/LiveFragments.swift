import KithHTTP
import KithTemplates

/// One live event often names several fragments of the same page. Fetched
/// one by one, each viewer pays for the page's scope, viewer and shared
/// reads once per fragment, and a wave of N viewers costs N × fragments
/// requests. A page may instead mark an ancestor of its fragments with
/// `data-fragment-batch="URL"`: `app.js` then asks that URL once per event,
/// `?fragments=a,b,c`, and morphs each element of the answer into place.
///
/// The batch route is a GET like any fragment's: the same scope loader
/// (404 to outsiders), the viewer's own rights, no writes. Each fragment it
/// returns is the same HTML its own route returns for that viewer.
enum LiveFragments {
    static let queryName = "fragments"
    /// More ids than a page has fragments is not a page asking.
    static let maximum = 16

    /// The ids asked for, each one of `known`, in the order asked, once.
    static func requested(_ request: Request, known: [FragmentID]) throws -> [FragmentID] {
        let raw = request.query[queryName] ?? ""
        let names = raw.split(separator: ",").map { String($0.trimmingCharacters()) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw HTTPError.badRequest("Say which parts of the page to refresh.") }
        guard names.count <= maximum else { throw HTTPError.badRequest("That is more parts than one page has.") }
        var chosen: [FragmentID] = []
        for name in names {
            guard let id = known.first(where: { $0.rawValue == name }) else {
                throw HTTPError.badRequest("This page has no part called “\(name.prefix(64))” to refresh.")
            }
            if !chosen.contains(id) { chosen.append(id) }
        }
        return chosen
    }
}
