import KithHTTP

/// `GET /live?topics=a:1,b:2&cursor=EPOCH-ID`: one event stream per tab,
/// carrying every topic the page shows. Each topic is authorised for the
/// viewer at connect time; one refusal refuses the whole stream (404), so a
/// page never silently misses updates it thinks it is getting.
enum LiveRoutes {
    static let stream = Route(.get, "/live")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(stream) { context in
            let hub = context.app.live
            let topics = (context.request.query["topics"] ?? "")
                .split(separator: ",").map { String($0.trimmingCharacters()) }.filter { !$0.isEmpty }
            guard !topics.isEmpty else { throw HTTPError.badRequest("Say which topics to follow.") }
            guard topics.count <= hub.limits.maxTopicsPerStream else {
                throw HTTPError.badRequest("That is more topics than one page can follow.")
            }
            for topic in topics where !context.app.liveTopics.allows(topic, context: context) {
                throw HTTPError.notFound("That live feed isn't available.")
            }
            let address = context.request.remoteAddress
            guard hub.hasRoom(forAddress: address) else {
                var headers = HTTPHeaders()
                headers.add("Retry-After", "60")
                throw HTTPError(
                    .tooManyRequests, "Too many pages are following live updates from your network. Close a few tabs and reload.",
                    headers: headers)
            }
            // A reconnecting EventSource sends the last id it saw; a fresh page
            // sends the cursor it was rendered with.
            let cursor = context.request.headers["Last-Event-ID"] ?? context.request.query["cursor"]
            hub.catchUp(toReach: cursor)
            let viewerKey = context.viewerKey
            let sessionID = context.session?.id
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/event-stream; charset=utf-8")
            headers.add("Cache-Control", "no-store")
            headers.add("X-Accel-Buffering", "no")
            return Response(status: .ok, headers: headers, body: .stream({ stream in
                hub.attach(
                    stream, topics: Array(Set(topics)).sorted(), cursor: cursor?.isEmpty == false ? cursor : nil, viewerKey: viewerKey,
                    sessionID: sessionID, address: address)
            }))
        }
    }
}

extension StringProtocol {
    func trimmingCharacters() -> Substring {
        var s = Substring(self)
        while let first = s.first, first == " " { s = s.dropFirst() }
        while let last = s.last, last == " " { s = s.dropLast() }
        return s
    }
}
