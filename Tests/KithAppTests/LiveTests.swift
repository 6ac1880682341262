import Foundation
import Glibc
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// Records what the hub sends, as a stream would carry it.
final class RecordingSink: LiveSink, @unchecked Sendable {
    private let lock = Locked<(bytes: [UInt8], closed: Bool, onClose: [@Sendable () -> Void])>(([], false, []))

    func write(_ bytes: [UInt8]) -> Bool {
        lock.withLock { state in
            guard !state.closed else { return false }
            state.bytes += bytes
            return true
        }
    }

    func close() {
        let callbacks = lock.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            defer { state.onClose = [] }
            return state.onClose
        }
        for callback in callbacks { callback() }
    }

    func onClose(_ action: @escaping @Sendable () -> Void) {
        let closed = lock.withLock { state -> Bool in
            if !state.closed { state.onClose.append(action) }
            return state.closed
        }
        if closed { action() }
    }

    var text: String { String(decoding: lock.value.bytes, as: UTF8.self) }
    var isClosed: Bool { lock.value.closed }
}

@Suite("The live hub")
struct LiveHubTests {
    @Test("a published invalidation reaches streams on its topic, and only them")
    func fanOut() {
        let hub = LiveHub(epoch: "ab12")
        let onTopic = RecordingSink(), elsewhere = RecordingSink()
        hub.attach(onTopic, topics: ["game:1"], cursor: nil, viewerKey: nil)
        hub.attach(elsewhere, topics: ["game:2"], cursor: nil, viewerKey: nil)
        hub.publish(topic: "game:1", fragments: ["board", "feed"])
        #expect(onTopic.text.contains("id: ab12-1\nevent: invalidate\ndata: {\"topic\":\"game:1\",\"fragments\":[\"board\",\"feed\"]}\n\n"))
        #expect(!elsewhere.text.contains("invalidate"))
    }

    @Test("a stream opened with a cursor replays what it missed, in order, across topics")
    func replay() {
        let hub = LiveHub(epoch: "ab12")
        let cursor = hub.cursor
        hub.publish(topic: "game:1", fragments: ["a"])
        hub.publish(topic: "tally:9", fragments: ["b"])
        hub.publish(topic: "game:1", fragments: ["c"])
        let sink = RecordingSink()
        hub.attach(sink, topics: ["game:1", "tally:9"], cursor: cursor, viewerKey: nil)
        let text = sink.text
        let a = text.range(of: "ab12-1")!, b = text.range(of: "ab12-2")!, c = text.range(of: "ab12-3")!
        #expect(a.lowerBound < b.lowerBound && b.lowerBound < c.lowerBound)
        let later = RecordingSink()
        hub.attach(later, topics: ["game:1"], cursor: "ab12-2", viewerKey: nil)
        #expect(later.text.contains("ab12-3") && !later.text.contains("ab12-1"))
    }

    @Test("a cursor from another boot gets reload, and the stream ends")
    func reloadAfterRestart() {
        let hub = LiveHub(epoch: "ab12")
        let sink = RecordingSink()
        hub.attach(sink, topics: ["game:1"], cursor: "ffff-3", viewerKey: nil)
        #expect(sink.text.contains("event: reload"))
        #expect(sink.isClosed)
    }

    @Test("a cursor older than the buffer gets reload")
    func reloadAfterOverrun() {
        var limits = LiveHub.Limits()
        limits.eventsPerTopic = 4
        let hub = LiveHub(limits: limits, epoch: "ab12")
        let cursor = hub.cursor
        for _ in 0..<5 { hub.publish(topic: "game:1", fragments: ["board"]) }
        let sink = RecordingSink()
        hub.attach(sink, topics: ["game:1"], cursor: cursor, viewerKey: nil)
        #expect(sink.text.contains("event: reload"))
        let recent = RecordingSink()
        hub.attach(recent, topics: ["game:1"], cursor: "ab12-2", viewerKey: nil)
        #expect(!recent.text.contains("reload"))
        #expect(recent.text.contains("ab12-5"))
    }

    @Test("malformed and future cursors get reload")
    func badCursors() {
        let hub = LiveHub(epoch: "ab12")
        for cursor in ["nonsense", "ab12-", "ab12-99", "AB12-0"] {
            let sink = RecordingSink()
            hub.attach(sink, topics: ["game:1"], cursor: cursor, viewerKey: nil)
            #expect(sink.text.contains("event: reload"), "\(cursor)")
        }
    }

    @Test("at the per-viewer cap the oldest stream is evicted, not the new one refused")
    func eviction() {
        var limits = LiveHub.Limits()
        limits.maxStreamsPerViewer = 2
        let hub = LiveHub(limits: limits, epoch: "ab12")
        let first = RecordingSink(), second = RecordingSink(), third = RecordingSink()
        let stranger = RecordingSink()
        hub.attach(first, topics: ["t:1"], cursor: nil, viewerKey: "user-1")
        hub.attach(second, topics: ["t:1"], cursor: nil, viewerKey: "user-1")
        hub.attach(stranger, topics: ["t:1"], cursor: nil, viewerKey: "user-2")
        hub.attach(third, topics: ["t:1"], cursor: nil, viewerKey: "user-1")
        #expect(first.isClosed)
        #expect(first.text.contains("event: evicted"))
        #expect(!second.isClosed && !third.isClosed && !stranger.isClosed)
        #expect(hub.openStreams == 3)
        hub.publish(topic: "t:1", fragments: ["x"])
        #expect(third.text.contains("invalidate") && !first.text.contains("invalidate"))
    }

    @Test("heartbeats go to every stream; streams past their lifetime are closed")
    func heartbeatAndLifetime() {
        var limits = LiveHub.Limits()
        limits.maxLifetimeSeconds = 0.05
        let hub = LiveHub(limits: limits, epoch: "ab12")
        let sink = RecordingSink()
        hub.attach(sink, topics: ["t:1"], cursor: nil, viewerKey: nil)
        hub.tick()
        #expect(sink.text.contains(": heartbeat\n\n"))
        usleep(100_000)
        hub.tick()
        #expect(sink.isClosed)
        #expect(hub.openStreams == 0)
    }

    @Test("a forgotten idle topic cannot replay, so an old cursor reloads")
    func forgottenTopics() {
        var limits = LiveHub.Limits()
        limits.idleTopicSeconds = 0
        let hub = LiveHub(limits: limits, epoch: "ab12")
        let cursor = hub.cursor
        hub.publish(topic: "game:1", fragments: ["board"])
        usleep(1000)
        hub.tick()
        let sink = RecordingSink()
        hub.attach(sink, topics: ["game:1"], cursor: cursor, viewerKey: nil)
        #expect(sink.text.contains("event: reload"))
        // Made anew by the next event, the topic still cannot replay what
        // went before it was forgotten.
        hub.publish(topic: "game:1", fragments: ["score"])
        let again = RecordingSink()
        hub.attach(again, topics: ["game:1"], cursor: cursor, viewerKey: nil)
        #expect(again.text.contains("event: reload"), "replaying only event 2 would miss event 1")
        let recent = RecordingSink()
        hub.attach(recent, topics: ["game:1"], cursor: "ab12-1", viewerKey: nil)
        #expect(recent.text.contains("id: ab12-2\n"))
    }

    @Test("every line of a multi-line payload is prefixed with data:")
    func multiLineData() {
        let event = ServerSentEvent(id: "1\n2", event: "x", data: "one\ntwo\r\nthree\rfour")
        #expect(String(decoding: event.bytes, as: UTF8.self) == "id: 12\nevent: x\ndata: one\ndata: two\ndata: three\ndata: four\n\n")
    }

    @Test("topic names and fragment ids are JSON-escaped in the event")
    func jsonEscaping() {
        let hub = LiveHub(epoch: "ab12")
        let sink = RecordingSink()
        hub.attach(sink, topics: ["a\"b"], cursor: nil, viewerKey: nil)
        hub.publish(topic: "a\"b", fragments: ["c\\d\u{1}"])
        #expect(sink.text.contains(#"data: {"topic":"a\"b","fragments":["c\\d\u0001"]}"#))
    }
}

@Suite("Live streams over HTTP")
struct LiveHTTPTests {
    static let write = Route(.post, "/test/write")

    /// An app with an open topic kind, a closed one, and a route that writes a
    /// row and publishes after commit — or throws before committing.
    static func harness(configure: (inout KithConfiguration) -> Void = { _ in }) throws -> AppHarness {
        try AppHarness(configure: configure) { app in
            app.liveTopics.register(kind: "open") { _, _ in true }
            app.liveTopics.register(kind: "closed") { _, _ in false }
            app.on(write) { context in
                let fail = context.request.form["fail"] == "1"
                let hub = context.app.live
                try context.app.database.write { tx in
                    try tx.execute("INSERT INTO settings (key, value) VALUES (\(UUID().uuidString), 'x')")
                    tx.afterCommit { hub.publish(topic: "open:1", fragments: [fail ? "failed" : "written"]) }
                    if fail { throw HTTPError.badRequest("refused on purpose") }
                }
                return .redirect(to: "/")
            }
        }
    }

    func open(_ app: AppHarness, _ query: String, headers: String = "") throws -> TestClient {
        let client = try TestClient(port: app.port)
        try client.send("GET /live?\(query) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
        return client
    }

    @Test("an authorised stream opens as text/event-stream with the right headers")
    func opens() throws {
        let app = try Self.harness()
        let client = try open(app, "topics=open:1")
        let head = try client.read(until: "retry: 2000", timeout: 5)
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.contains("Content-Type: text/event-stream"))
        #expect(head.contains("Cache-Control: no-store"))
        #expect(head.contains("X-Accel-Buffering: no"))
    }

    @Test("a refused or unknown topic refuses the whole stream")
    func refused() throws {
        let app = try Self.harness()
        for query in ["topics=open:1,closed:1", "topics=nosuch:1", "topics=open:bad%20key", "topics="] {
            let client = try open(app, query)
            let response = try client.readResponse()
            #expect(response.status == 404 || response.status == 400, "\(query)")
            #expect(!response.text.contains("retry:"))
        }
    }

    @Test("a write that commits publishes; one that rolls back publishes nothing")
    func publishAfterCommit() throws {
        let app = try Self.harness()
        let stream = try open(app, "topics=open:1")
        _ = try stream.read(until: "retry: 2000", timeout: 5)
        let browser = WebSession(port: app.port)
        let token = try browser.token(from: "/signup")
        for fail in ["1", "0"] {
            _ = try browser.post("/test/write", [("fail", fail)], csrf: token)
        }
        let received = try stream.read(until: "written", timeout: 5)
        #expect(!received.contains("failed"))
        let rows = try app.app.database.read { try $0.queryValue("SELECT count(*) FROM settings WHERE value = 'x'", as: Int64.self) }
        #expect(rows == 1)
    }

    @Test("a page's cursor replays what was published after it was rendered")
    func replayFromCursor() throws {
        let app = try Self.harness()
        let cursor = app.app.live.cursor
        app.app.live.publish(topic: "open:1", fragments: ["missed"])
        let client = try open(app, "topics=open:1&cursor=\(cursor)")
        #expect(try client.read(until: "missed", timeout: 5).contains("event: invalidate"))
    }

    @Test("Last-Event-ID from a reconnecting browser wins over the page cursor")
    func lastEventID() throws {
        let app = try Self.harness()
        let cursor = app.app.live.cursor
        app.app.live.publish(topic: "open:1", fragments: ["first"])
        let seen = app.app.live.cursor
        app.app.live.publish(topic: "open:1", fragments: ["second"])
        let client = try open(app, "topics=open:1&cursor=\(cursor)", headers: "Last-Event-ID: \(seen)\r\n")
        let text = try client.read(until: "second", timeout: 5)
        #expect(!text.contains("first"))
    }

    @Test("a cursor from before a restart gets reload")
    func reloadAfterRestart() throws {
        let app = try Self.harness()
        let client = try open(app, "topics=open:1&cursor=0123abcd-5")
        #expect(try client.read(until: "event: reload", timeout: 5).contains("reload"))
        #expect(try client.waitForClose(timeout: 5))
    }

    @Test("a cursor older than the topic's buffer gets reload")
    func reloadAfterOverrun() throws {
        let app = try Self.harness { $0.live.eventsPerTopic = 3 }
        let cursor = app.app.live.cursor
        for index in 0..<5 { app.app.live.publish(topic: "open:1", fragments: ["f\(index)"]) }
        let client = try open(app, "topics=open:1&cursor=\(cursor)")
        let text = try client.read(until: "event: reload", timeout: 5)
        #expect(!text.contains("invalidate"))
    }

    @Test("at the per-user cap a new stream evicts that user's oldest, and only theirs")
    func evictionOverHTTP() throws {
        let app = try Self.harness {
            $0.live.maxStreamsPerViewer = 2
            $0.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
        }
        let ada = try signUp(app, username: "ada_streams")
        let bob = try signUp(app, username: "bob_streams")
        func stream(_ session: WebSession) throws -> TestClient {
            let client = try TestClient(port: app.port)
            try client.send("GET /live?topics=open:1 HTTP/1.1\r\nHost: localhost\r\nCookie: kith_session=\(session.sessionCookie!)\r\n\r\n")
            _ = try client.read(until: "retry: 2000", timeout: 5)
            return client
        }
        let oldest = try stream(ada)
        let bobs = try stream(bob)
        let second = try stream(ada)
        let newest = try stream(ada)
        #expect(try oldest.read(until: "event: evicted", timeout: 5).contains("evicted"))
        #expect(try oldest.waitForClose(timeout: 5))
        app.app.live.publish(topic: "open:1", fragments: ["after"])
        for client in [second, newest, bobs] {
            #expect(try client.read(until: "after", timeout: 5).contains("invalidate"))
        }
    }

    @Test("heartbeats arrive on an idle stream")
    func heartbeat() throws {
        let app = try Self.harness { $0.live.heartbeatSeconds = 0.2 }
        let client = try open(app, "topics=open:1")
        #expect(try client.read(until: ": heartbeat", timeout: 5).contains(": heartbeat"))
    }

    @Test("a closed stream is forgotten by the hub")
    func detach() throws {
        let app = try Self.harness()
        do {
            let client = try open(app, "topics=open:1")
            _ = try client.read(until: "retry: 2000", timeout: 5)
            #expect(app.app.live.openStreams == 1)
        }
        let deadline = Clock.now + 5
        while app.app.live.openStreams > 0 && Clock.now < deadline { usleep(10_000) }
        #expect(app.app.live.openStreams == 0)
    }

    @Test("a rendered page carries its live topics and cursor")
    func pageCursor() throws {
        let app = try Self.harness()
        let context = app.app.pageContext(topics: ["open:1"])
        #expect(context.live.topics == ["open:1"])
        #expect(context.live.cursor == app.app.live.cursor)
    }
}
