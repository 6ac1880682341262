import Glibc
import KithHTTP
import KithStorage
import KithTemplates

// TechEmpower's "plaintext" and "Fortunes" on Kith's engine, storage and
// template layers, so Kith's numbers compare with other frameworks on the
// same work. `POST /fortunes` adds a row; the durability test uses it.
//
//   kith-bench [--port P] [--host H] [--data DIR] [--event-loops N] [--workers N] [--public DIR] [--quiet]
//
// With --public, the files of DIR are served under /static/ as `kith serve`
// serves Public/, so the static path can be profiled without the app.

// `kith-bench sse-clients --port P --streams N [--topics T] [--hold] [--defer]`: the SSE load client.
if CommandLine.arguments.dropFirst().first == "sse-clients" {
    var port = 8080, streams = 1000, topics = "styleguide:demo", hold = false, deferReading = false
    var rest = CommandLine.arguments.dropFirst(2)
    while let flag = rest.popFirst() {
        switch flag {
        case "--port": port = rest.popFirst().flatMap { Int($0) } ?? port
        case "--streams": streams = rest.popFirst().flatMap { Int($0) } ?? streams
        case "--topics": topics = rest.popFirst() ?? topics
        case "--hold": hold = true
        case "--defer": deferReading = true
        default:
            Console.error("usage: kith-bench sse-clients --port P --streams N [--topics T] [--hold] [--defer]")
            exit(2)
        }
    }
    exit(SSEClients.run(port: port, count: streams, topics: topics, hold: hold, deferReading: deferReading))
}

ShutdownSignal.blockSignals()

struct Options {
    var host = "127.0.0.1"
    var port = 8081
    var data = "./data/bench"
    var eventLoops = 2
    var workers = 16
    var log = true
    var publicDirectory: String?
}

var options = Options()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--host": options.host = arguments.popFirst() ?? options.host
    case "--port": options.port = arguments.popFirst().flatMap { Int($0) } ?? options.port
    case "--data": options.data = arguments.popFirst() ?? options.data
    case "--event-loops": options.eventLoops = arguments.popFirst().flatMap { Int($0) } ?? options.eventLoops
    case "--workers": options.workers = arguments.popFirst().flatMap { Int($0) } ?? options.workers
    case "--public": options.publicDirectory = arguments.popFirst()
    case "--quiet": options.log = false
    default:
        Console.error("usage: kith-bench [--host H] [--port P] [--data DIR] [--event-loops N] [--workers N] [--public DIR] [--quiet]")
        exit(2)
    }
}

let database: Database
do {
    _ = mkdir(options.data, 0o700)
    database = try Database(path: options.data + "/bench.sqlite", readers: options.workers)
    try database.write { tx in
        try tx.execute("CREATE TABLE IF NOT EXISTS fortune (id INTEGER PRIMARY KEY, message TEXT NOT NULL)")
        if try tx.queryValue("SELECT count(*) FROM fortune", as: Int64.self) == 0 {
            for message in FortuneSeed.messages { try tx.execute("INSERT INTO fortune (message) VALUES (\(message))") }
        }
    }
} catch {
    Console.error("kith-bench: \(error)")
    exit(1)
}

struct Fortune {
    let id: Int64
    let message: String
}

enum FortunesPage {
    static func render(_ fortunes: [Fortune]) -> HTML {
        // One buffer for the whole page, written through the same escaping
        // interpolation a template uses: a separate HTML value per row cost
        // an allocation and a copy each.
        var page = HTML.StringInterpolation(literalCapacity: 256 + fortunes.count * 96, interpolationCount: 0)
        page.appendLiteral("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>")
        for fortune in fortunes {
            page.appendLiteral("<tr><td>")
            page.appendInterpolation(fortune.id)
            page.appendLiteral("</td><td>")
            page.appendInterpolation(fortune.message)
            page.appendLiteral("</td></tr>")
        }
        page.appendLiteral("</table></body></html>")
        return HTML(stringInterpolation: page)
    }
}

/// Whether `a` sorts before `b` by their UTF-8 bytes: memcmp over the
/// strings' own storage, read in place (a generic walk of two UTF8Views, or a
/// copy of each string per comparison, costs more than the rest of the sort).
func utf8Precedes(_ a: String, _ b: String) -> Bool {
    let ordered = a.utf8.withContiguousStorageIfAvailable { x in
        b.utf8.withContiguousStorageIfAvailable { y -> Bool in
            let shared = min(x.count, y.count)
            if shared > 0, let p = x.baseAddress, let q = y.baseAddress {
                let order = memcmp(p, q, shared)
                if order != 0 { return order < 0 }
            }
            return x.count < y.count
        }
    }
    // Bridged strings have no contiguous UTF-8; Swift's own order agrees.
    return (ordered ?? nil) ?? (a < b)
}

struct BenchContext: Sendable {
    let request: Request
}

let plaintext = Route(.get, "/plaintext", runsInline: true)
let fortunes = Route(.get, "/fortunes")
let addFortune = Route(.post, "/fortunes")

let router = Router<BenchContext>(makeContext: { BenchContext(request: $0) })
router.on(plaintext) { _ in
    Response.bytes(Array("Hello, World!".utf8), contentType: "text/plain")
}
router.on(fortunes) { _ in
    var list = try database.read { db in
        try db.query("SELECT id, message FROM fortune").map { row in
            // By position: the query names its two columns in this order.
            Fortune(id: try row.get(0), message: try row.get(1))
        }
    }
    list.append(Fortune(id: 0, message: "Additional fortune added at request time."))
    // Code-point order, which for these (NFC) messages is String's own order,
    // compared as UTF-8 bytes without Unicode normalization on the way.
    list.sort { utf8Precedes($0.message, $1.message) }
    return Response.bytes(FortunesPage.render(list).bytes, contentType: "text/html; charset=utf-8")
}
router.on(addFortune) { context in
    guard let message = context.request.form["message"], !message.isEmpty else {
        throw HTTPError.badRequest("A fortune needs a message.")
    }
    let id = try database.write { tx in
        try tx.execute("INSERT INTO fortune (message) VALUES (\(message))")
        return tx.lastInsertRowID
    }
    return Response.text("\(id)\n", status: .created)
}

if let directory = options.publicDirectory {
    let assets: StaticFiles
    do {
        assets = try StaticFiles(directory: directory)
    } catch {
        Console.error("kith-bench: \(error)")
        exit(1)
    }
    router.on(Route(.get, "/static/*file", runsInline: true)) { context in
        guard let name = context.request.parameters["file"], let response = assets.response(for: name, head: context.request.head) else {
            throw HTTPError.notFound()
        }
        return response
    }
}

struct BenchResponder: HTTPResponder {
    func decide(method: HTTPMethod, path: String) -> RouteDecision { router.decide(method: method, path: path) }
    func respond(to request: Request) -> Response {
        router.respond(to: request, errorResponse: { errorResponse($0, head: request.head) })
    }
    func errorResponse(_ error: HTTPError, head: RequestHead?) -> Response {
        Response.text(error.message + "\n", status: error.status)
    }
}

var configuration = ServerConfiguration()
configuration.host = options.host
configuration.port = options.port
configuration.eventLoops = options.eventLoops
configuration.workers = options.workers
configuration.temporaryDirectory = "/tmp"
let server = Server(configuration: configuration, responder: BenchResponder(), logger: Logger(enabled: options.log))
do {
    let port = try server.start()
    Console.out("kith-bench listening on http://\(options.host):\(port)")
} catch {
    Console.error("kith-bench: \(error)")
    exit(1)
}
_ = ShutdownSignal.wait()
server.shutdown()
database.close()
