import KithHTTP
import KithTemplates

/// The "still missing" view of a board or the by-name list: `?missing=everyone`
/// (nobody in the game has spotted it) or `?missing=me` (the viewer hasn't).
/// Read from the query string, so it works without script, and carried on
/// the live fragment's path so a refresh keeps it.
enum PlateMissingView {
    static let parameter = "missing"

    /// The view asked for; nil for the whole board. An unknown value is a
    /// 400 with a message rather than a silently different page.
    static func whose(_ context: RequestContext) throws -> PlateMissing.Whose? {
        guard let raw = context.request.query[parameter], !raw.isEmpty else { return nil }
        guard let whose = PlateMissing.Whose(rawValue: raw) else {
            throw HTTPError.badRequest("Show the whole board, what nobody has spotted, or what you haven't.")
        }
        return whose
    }

    /// `path` with the view's query string.
    static func path(_ path: String, _ whose: PlateMissing.Whose?) -> String {
        whose.map { "\(path)?\(parameter)=\($0.rawValue)" } ?? path
    }

    /// The regions still missing in this view, in the order given.
    static func regions(_ regions: [PlateRegion], spots: [PlateSpot], viewerID: Int64, whose: PlateMissing.Whose) -> [PlateRegion] {
        let spotted = Set(spots.filter { whose == .everyone || $0.userID == viewerID }.map(\.region))
        return regions.filter { !spotted.contains($0.code) }
    }

    /// The view for a page at `base`: its three links and what is missing.
    static func view(
        _ whose: PlateMissing.Whose?, base: String, regions: [PlateRegion], spots: [PlateSpot], viewerID: Int64
    ) -> PlateMissing {
        let links: [(whose: PlateMissing.Whose?, href: String)] = [(nil, base)] + PlateMissing.Whose.allCases.map { ($0, path(base, $0)) }
        let names = whose.map { self.regions(regions, spots: spots, viewerID: viewerID, whose: $0).map(\.name) } ?? []
        return PlateMissing(whose: whose, links: links, names: names)
    }

    /// Each region's first spot, from every spot oldest first: the shared
    /// drawing a race's "nobody has yet" view fades against.
    static func firstSpots(_ spots: [PlateSpot]) -> [PlateSpot] {
        var seen = Set<String>()
        return spots.filter { seen.insert($0.region).inserted }
    }
}
