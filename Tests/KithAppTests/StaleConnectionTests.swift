import Foundation
import KithHTTP
import KithTestSupport
import Testing

/// The test browser against a server that closes a silent connection after
/// its header timeout: a connection left unused that long (as a stalled
/// test thread leaves one on a loaded machine) is replaced, never reported
/// as "closed before a response head", and the request runs exactly once.
@Suite struct StaleConnectionTests {
    struct Context: Sendable { let request: Request }

    static let page = Route(.get, "/page")
    static let form = Route(.post, "/form", body: .form)

    struct Responder: HTTPResponder {
        let router: Router<Context>
        func decide(method: HTTPMethod, path: String) -> RouteDecision { router.decide(method: method, path: path) }
        func admit(_ request: Request) -> Admission { .proceed }
        func respond(to request: Request) -> Response {
            router.respond(to: request, errorResponse: { errorResponse($0, head: request.head) })
        }
        func errorResponse(_ error: HTTPError, head: RequestHead?) -> Response { .text(error.message, status: error.status) }
    }

    @Test("a connection the server closed before the request was sent is replaced", arguments: ["GET", "POST"])
    func staleConnectionReplaced(_ method: String) throws {
        let directory = try TemporaryDirectory("kith-stale")
        let ran = Locked(0)
        let router = Router<Context>(makeContext: { Context(request: $0) })
        router.on(Self.page) { _ in
            ran.withLock { $0 += 1 }
            return .text("page")
        }
        router.on(Self.form) { _ in
            ran.withLock { $0 += 1 }
            return .text("posted")
        }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.workers = 2
        configuration.temporaryDirectory = directory.path
        configuration.headerTimeout = 0.2
        let server = Server(configuration: configuration, responder: Responder(router: router), logger: Logger(enabled: false))
        let port = try server.start()
        defer { server.shutdown() }

        let session = WebSession(port: port)
        let connections = Locked(0)
        // The first connection sits silent until the server has closed it:
        // the stall between connect and send, made certain.
        session.connect = {
            let client = try TestClient(port: port)
            let first = connections.withLock { count -> Bool in
                count += 1
                return count == 1
            }
            if first {
                let deadline = Clock.now + 10
                while !client.peerClosed {
                    guard Clock.now < deadline else { throw TestError("the server never closed the silent connection") }
                    _ = try client.readSome(timeout: 0.05)
                }
            }
            return client
        }
        let response = method == "GET" ? try session.get("/page") : try session.post("/form", [("note", "once")])
        #expect(response.status == 200)
        #expect(response.text == (method == "GET" ? "page" : "posted"))
        #expect(connections.value == 2)
        #expect(ran.value == 1)
    }
}
