import Glibc
import KithCrypto
import KithHTTP
import KithStorage
import KithSync

/// Web Push delivery (RFC 8030 with RFC 8291 encryption and RFC 8292 VAPID).
///
/// `deliver` only enqueues: one sender thread reads the user's subscriptions,
/// encrypts a small JSON message for each and POSTs it to the browser's push
/// service. Callers (handlers, the digest sweeper) never wait on the network.
/// The queue is bounded; when it is full a message is dropped with a log
/// line, because a late notification is worth less than a responsive server.
final class PushService: Sendable {
    let database: Database
    let dataDirectory: String
    /// Where `vapid.key` lives: the media directory when instances share
    /// one, since every instance must sign with the key browsers subscribed to.
    let keyDirectory: String
    let baseURL: @Sendable () -> String
    let logger: Logger

    /// Messages waiting for the sender thread, at most this many.
    static let queueCapacity = 256
    /// Subscriptions one person may keep; the oldest go first. A person has
    /// a few browsers, not hundreds, and each send is a request.
    static let subscriptionsPerUser = 20
    static let keyFileName = "vapid.key"

    struct Message: Sendable {
        let userID: Int64
        let payload: [UInt8]
    }

    /// Where deliveries may go. Production: public https hosts only, the
    /// system's CA store. Tests point a subscription at a local receiver and
    /// trust its certificate.
    struct DeliveryPolicy: Sendable {
        var allowLocalEndpoints = false
        var extraCAFile: String?
    }

    private struct State {
        var queue: [Message] = []
        var inFlight = 0
        var stopping = false
        var thread: pthread_t?
        var client: HTTPSClient?
    }

    private let monitor = Monitor()
    // Guarded by `monitor`: a pthread mutex and condition, which Swift cannot see.
    nonisolated(unsafe) private var state = State()
    private let key = Lock<P256Key?>(nil)
    private let policyLock = Lock(DeliveryPolicy())

    init(
        database: Database, dataDirectory: String, keyDirectory: String? = nil, baseURL: @escaping @Sendable () -> String, logger: Logger
    ) {
        self.database = database
        self.dataDirectory = dataDirectory
        self.keyDirectory = keyDirectory ?? dataDirectory
        self.baseURL = baseURL
        self.logger = logger
    }

    var policy: DeliveryPolicy { policyLock.withLock { $0 } }

    /// For tests: accept loopback endpoints and trust `caFile` as well.
    func useTestReceiver(caFile: String) {
        policyLock.withLock { $0 = DeliveryPolicy(allowLocalEndpoints: true, extraCAFile: caFile) }
        monitor.withLock { state.client = nil }
    }

    // MARK: Lifecycle

    /// Loads (or makes) the VAPID key and starts the sender thread.
    func start() {
        do {
            _ = try vapidKey()
        } catch {
            logger.log(["level": "error", "msg": "web push disabled: no VAPID key", "cause": "\(error)"])
        }
        monitor.withLock {
            guard state.thread == nil else { return }
            state.stopping = false
            state.thread = Threads.spawn(name: "push") { [self] in run() }
        }
    }

    /// Stops the sender after the message it is sending; queued ones are dropped.
    func stop() {
        let thread: pthread_t? = monitor.withLock {
            state.stopping = true
            if !state.queue.isEmpty {
                logger.log(["level": "warn", "msg": "web push messages dropped at shutdown", "count": "\(state.queue.count)"])
            }
            state.queue.removeAll()
            monitor.broadcast()
            defer { state.thread = nil }
            return state.thread
        }
        if let thread { Threads.join(thread) }
    }

    // MARK: The VAPID key

    /// The server's key pair: read from `vapid.key` in the data directory, or
    /// made and written there (mode 0600) on first use. Browsers bind each
    /// subscription to this key, so it must survive restarts.
    func vapidKey() throws -> P256Key {
        try key.withLock { cached in
            if let cached { return cached }
            let path = keyDirectory + "/" + Self.keyFileName
            let loaded: P256Key
            if let bytes = try Self.readFile(path) {
                loaded = try VAPID.key(rawBytes: bytes)
            } else {
                // The key this instance used before its media directory was
                // shared is taken along, so existing subscriptions keep working.
                let own = keyDirectory == dataDirectory ? nil : try Self.readFile(dataDirectory + "/" + Self.keyFileName)
                var raw = try own ?? VAPID.rawBytes(of: try P256Key.generate())
                defer { raw.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
                var kept = try Self.writeFileOnce(path, raw)
                defer { kept.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
                loaded = try VAPID.key(rawBytes: kept)
                if kept == raw { logger.log(["msg": own == nil ? "made a VAPID key for web push" : "shared the VAPID key", "file": path]) }
            }
            cached = loaded
            return loaded
        }
    }

    /// The public key, base64url: what `pushManager.subscribe` takes as `applicationServerKey`.
    func publicKey() throws -> String { Base64URL.encode(try vapidKey().publicKey) }

    private static func readFile(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw PushError.keyFile(path, errno)
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: VAPID.rawKeyBytes + 1)
        let count = read(descriptor, &bytes, bytes.count)
        guard count == VAPID.rawKeyBytes else { throw PushError.keyFile(path, EINVAL) }
        return Array(bytes[..<count])
    }

    /// Written to a temporary file first, so a crash never leaves half a key,
    /// then linked into place, which fails when the file exists: of instances
    /// starting at once on a shared directory, the first to link wins and
    /// the rest read its key. Returns the key in the file.
    private static func writeFileOnce(_ path: String, _ bytes: [UInt8]) throws -> [UInt8] {
        let temporary = path + ".tmp-\(SecureRandom.token(bytes: 9))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PushError.keyFile(temporary, errno) }
        let written = write(descriptor, bytes, bytes.count)
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else {
            let code = errno
            unlink(temporary)
            throw PushError.keyFile(path, code)
        }
        let linked = link(temporary, path) == 0
        let code = errno
        unlink(temporary)
        if linked { return bytes }
        guard code == EEXIST, let kept = try readFile(path) else { throw PushError.keyFile(path, code) }
        return kept
    }

    // MARK: Subscriptions

    /// Validates and stores a browser's subscription for `userID`. A browser
    /// that subscribed under another account moves to this one.
    func subscribe(userID: Int64, endpoint: String, p256dh: String, auth: String, now: Int64) throws {
        let subscription = try validate(endpoint: endpoint, p256dh: p256dh, auth: auth)
        try database.write { tx in
            try PushStore.save(tx, userID: userID, subscription: subscription, now: now, keep: Self.subscriptionsPerUser)
        }
    }

    /// Forgets the subscription at `endpoint` if it is this user's.
    func unsubscribe(userID: Int64, endpoint: String) throws {
        try database.write { tx in try PushStore.delete(tx, userID: userID, endpoint: endpoint) }
    }

    /// The subscription in canonical form, or a 400 saying what is wrong.
    func validate(endpoint: String, p256dh: String, auth: String) throws(HTTPError) -> PushStore.Subscription {
        guard endpoint.utf8.count <= 2048, let target = Target(endpoint) else {
            throw HTTPError.badRequest("Push endpoints must be https:// URLs.")
        }
        if !policy.allowLocalEndpoints && PushAddress.isLocal(host: target.host) {
            throw HTTPError.badRequest("Push endpoints must be on the public internet.")
        }
        let p256dh = Self.unpadded(p256dh)
        let auth = Self.unpadded(auth)
        guard let key = Base64URL.decode(p256dh), (try? P256Key(publicKey: key)) != nil else {
            throw HTTPError.badRequest("The subscription's p256dh key is not a P-256 public key.")
        }
        guard let secret = Base64URL.decode(auth), secret.count == WebPushCrypto.authSecretBytes else {
            throw HTTPError.badRequest("The subscription's auth secret must be 16 bytes.")
        }
        return PushStore.Subscription(id: 0, endpoint: endpoint, p256dh: p256dh, auth: auth)
    }

    /// Some browsers pad base64url with `=`; the rest of Kith's decoding does not accept it.
    private static func unpadded(_ text: String) -> String {
        var text = text.trimmingWhitespace()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    // MARK: Delivery

    /// Queues a notification for every browser `userID` subscribed. Returns at once.
    func deliver(to userID: Int64, title: String, body: String, url: String) {
        let json = "{\"title\":\(JSONString.quoted(title)),\"body\":\(JSONString.quoted(body)),\"url\":\(JSONString.quoted(url))}"
        var payload = Array(json.utf8)
        // Long texts are cut, never refused: push services carry under 4 KiB.
        if payload.count > 3_000 {
            let short = "{\"title\":\(JSONString.quoted(String(title.prefix(100)))),\"body\":\(JSONString.quoted(String(body.prefix(500)))),\"url\":\(JSONString.quoted(String(url.prefix(1_000))))}"
            payload = Array(short.utf8)
        }
        let accepted = monitor.withLock {
            guard !state.stopping, state.queue.count < Self.queueCapacity else { return false }
            state.queue.append(Message(userID: userID, payload: payload))
            monitor.signal()
            return true
        }
        if !accepted {
            logger.log(["level": "warn", "msg": "web push queue full, message dropped", "user": "\(userID)"])
        }
    }

    /// Waits until the queue is empty and nothing is being sent; for tests.
    func waitUntilIdle(timeout: Double = 20) -> Bool {
        var waited = 0.0
        while waited < timeout {
            if monitor.withLock({ state.queue.isEmpty && state.inFlight == 0 }) { return true }
            usleep(20_000)
            waited += 0.02
        }
        return false
    }

    private func run() {
        while true {
            let message: Message? = monitor.withLock {
                while state.queue.isEmpty && !state.stopping { monitor.wait() }
                if state.stopping { return nil }
                state.inFlight += 1
                return state.queue.removeFirst()
            }
            guard let message else { return }
            send(message)
            monitor.withLock { state.inFlight -= 1 }
        }
    }

    private func httpsClient() throws -> HTTPSClient {
        let policy = self.policy
        return try monitor.withLock {
            if let client = state.client { return client }
            let client = try HTTPSClient(extraCAFile: policy.extraCAFile, allowLocalAddresses: policy.allowLocalEndpoints)
            state.client = client
            return client
        }
    }

    private func send(_ message: Message) {
        do {
            let subscriptions = try database.read { try PushStore.subscriptions($0, userID: message.userID) }
            if subscriptions.isEmpty { return }
            let key = try vapidKey()
            let client = try httpsClient()
            for subscription in subscriptions {
                send(message.payload, to: subscription, key: key, client: client)
            }
        } catch {
            logger.log(["level": "error", "msg": "web push failed", "user": "\(message.userID)", "cause": "\(error)"])
        }
    }

    private func send(_ payload: [UInt8], to subscription: PushStore.Subscription, key: P256Key, client: HTTPSClient) {
        // The endpoint is a capability: only its origin goes in the log.
        let origin = VAPID.audience(of: subscription.endpoint) ?? "?"
        do {
            guard let p256dh = Base64URL.decode(subscription.p256dh), let auth = Base64URL.decode(subscription.auth) else {
                throw PushError.storedKeys
            }
            let body = try WebPushCrypto.encrypt(payload, p256dh: p256dh, auth: auth)
            let now = Int64(time(nil))
            let authorization = try VAPID.authorization(
                key: key, endpoint: subscription.endpoint, subject: subject(), now: now)
            let response = try client.post(
                subscription.endpoint,
                headers: [
                    ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"), ("TTL", "86400"),
                    ("Urgency", "normal"), ("Authorization", authorization),
                ],
                body: body)
            switch response.status {
            case 200..<300:
                break
            case 404, 410:
                // The browser unsubscribed or the subscription expired: it will never work again.
                try database.write { tx in try PushStore.delete(tx, id: subscription.id) }
                logger.log(["msg": "web push subscription gone, removed", "push_service": origin, "status": "\(response.status)"])
            default:
                logger.log([
                    "level": "warn", "msg": "web push refused", "push_service": origin, "status": "\(response.status)",
                ])
            }
        } catch {
            logger.log(["level": "warn", "msg": "web push not delivered", "push_service": origin, "cause": "\(error)"])
        }
    }

    /// RFC 8292 `sub`: a contact for the push service's operators. The
    /// public base URL when it is https; otherwise a placeholder address,
    /// since push services refuse plain-http contacts.
    private func subject() -> String {
        let base = baseURL()
        return base.lowercased().hasPrefix("https://") ? base : "mailto:webpush@localhost.invalid"
    }
}

enum PushError: Error, CustomStringConvertible {
    case keyFile(String, Int32)
    case storedKeys

    var description: String {
        switch self {
        case .keyFile(let path, let code): "VAPID key file \(path): \(String(cString: strerror(code)))"
        case .storedKeys: "stored subscription keys are not base64url"
        }
    }
}

/// The SQL of Web Push subscriptions.
enum PushStore {
    struct Subscription: Sendable, Equatable {
        let id: Int64
        let endpoint: String
        let p256dh: String
        let auth: String
    }

    static func save(_ tx: Transaction, userID: Int64, subscription: Subscription, now: Int64, keep: Int) throws {
        try tx.execute("""
            INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at)
            VALUES (\(userID), \(subscription.endpoint), \(subscription.p256dh), \(subscription.auth), \(now))
            ON CONFLICT (endpoint) DO UPDATE SET
                user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at
            """)
        try tx.execute("""
            DELETE FROM push_subscriptions WHERE user_id = \(userID) AND id NOT IN (
                SELECT id FROM push_subscriptions WHERE user_id = \(userID) ORDER BY created_at DESC, id DESC LIMIT \(keep))
            """)
    }

    static func delete(_ tx: Transaction, userID: Int64, endpoint: String) throws {
        try tx.execute("DELETE FROM push_subscriptions WHERE user_id = \(userID) AND endpoint = \(endpoint)")
    }

    static func delete(_ tx: Transaction, id: Int64) throws {
        try tx.execute("DELETE FROM push_subscriptions WHERE id = \(id)")
    }

    static func subscriptions(_ db: some Queryable, userID: Int64) throws -> [Subscription] {
        try db.query("""
            SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = \(userID) ORDER BY id
            """).map {
            Subscription(
                id: try $0.get("id", as: Int64.self), endpoint: try $0.get("endpoint", as: String.self),
                p256dh: try $0.get("p256dh", as: String.self), auth: try $0.get("auth", as: String.self))
        }
    }

    static func count(_ db: some Queryable, userID: Int64) throws -> Int64 {
        try db.queryValue("SELECT count(*) FROM push_subscriptions WHERE user_id = \(userID)", as: Int64.self) ?? 0
    }
}
