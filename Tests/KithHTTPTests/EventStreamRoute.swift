import KithHTTP
import KithTestSupport

extension Router {
    /// An event stream that opens with a comment and is kept in `streams`,
    /// for the test to write to and end, over any protocol the harness speaks.
    func onEventStream(_ route: Route, keepingIn streams: Locked<[ResponseStream]>) {
        on(route) { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/event-stream")
            return Response(status: .ok, headers: headers, body: .stream({ stream in
                streams.withLock { $0.append(stream) }
                _ = stream.write(": open\n\n")
            }))
        }
    }
}
