import CKithShim
import Glibc
import Synchronization

/// What the engine asks of an application. `decide` runs on an I/O thread
/// as soon as a head is parsed, so it must be cheap and must not block;
/// `respond` runs on a worker (or inline for inline routes) and never throws:
/// the application renders its own errors.
public protocol HTTPResponder: Sendable {
    func decide(method: HTTPMethod, path: String) -> RouteDecision
    /// Runs on a worker for every request with a body, after its head and
    /// before a single body byte is read or written anywhere: whoever may
    /// not send this request is answered here, and the body is never read.
    /// The request has no form or body yet.
    func admit(_ request: Request) -> Admission
    func respond(to request: Request) -> Response
    /// A page for an error found before any handler ran (or thrown by one).
    func errorResponse(_ error: HTTPError, head: RequestHead?) -> Response
}

/// A field a multipart form must open with (a CSRF token). The engine only
/// knows where to look; whether the value is right is the application's
/// call (`accepts`), so secrets are compared where secrets are kept.
public struct RequiredField: Sendable {
    public let name: String
    public let accepts: @Sendable (String) -> Bool
    public let refusal: HTTPError

    public init(_ name: String, refusal: HTTPError, accepts: @escaping @Sendable (String) -> Bool) {
        self.name = name
        self.accepts = accepts
        self.refusal = refusal
    }
}

/// What `HTTPResponder.admit` decided about a request from its head.
public enum Admission: Sendable {
    /// Read the body. A multipart body must open with this field, checked
    /// before any file part is written.
    case proceed(firstField: RequiredField?)
    /// Answer this and leave the body unread.
    case refuse(HTTPError)

    public static let proceed = Admission.proceed(firstField: nil)
}

extension HTTPResponder {
    public func admit(_ request: Request) -> Admission { .proceed }
}

public enum ServerError: Error, CustomStringConvertible {
    case system(String, Int32)
    case cannotListen(host: String, port: Int, errno: Int32)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .cannotListen(let host, let port, let code):
            "cannot listen on \(host):\(port): \(String(cString: strerror(code)))"
        }
    }
}

/// What every loop shares: configuration, the application, the workers.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let workers: WorkerPool
    private let plainConnectionFields: ConnectionFields
    private let secureConnectionFields: ConnectionFields
    let headerTimeout: UInt64
    let bodyProgressTimeout: UInt64
    let writeProgressTimeout: UInt64
    let keepAliveTimeout: UInt64
    let lingerTimeout: UInt64
    let uploads: UploadBudget
    /// `maxConnections`, lowered to what the descriptor limit allows.
    let connectionCap: Int
    private let connections = Atomic<Int>(0)
    private let connectionsByAddress = Mutex<[String: Int]>([:])

    /// The fields every response on a connection gets, for HTTP/1.1 and HTTP/2 alike.
    func connectionFields(secure: Bool) -> ConnectionFields {
        secure ? secureConnectionFields : plainConnectionFields
    }

    init(configuration: ServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        workers = WorkerPool(threads: configuration.workers, queueCapacity: configuration.workQueueCapacity)
        (plainConnectionFields, secureConnectionFields) = ConnectionFields.forConnections(configuration)
        func nanos(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }
        headerTimeout = nanos(configuration.headerTimeout)
        bodyProgressTimeout = nanos(configuration.bodyProgressTimeout)
        writeProgressTimeout = nanos(configuration.writeProgressTimeout)
        keepAliveTimeout = nanos(configuration.keepAliveTimeout)
        lingerTimeout = nanos(configuration.lingerTimeout)
        uploads = UploadBudget(
            totalBytes: configuration.uploadSpaceBytes, perAddressBytes: configuration.uploadSpacePerAddressBytes)
        // Thousands of open event streams need thousands of descriptors; the
        // soft limit is often 1024 while the hard limit allows far more. Past
        // whatever we get, accept() would fail with EMFILE: stop short of it.
        var limit: UInt64 = 0
        _ = kith_raise_nofile_limit(&limit)
        // The reserve shrinks with a small limit, so that one still serves.
        let descriptors = Int(clamping: limit)
        let reserve = min(configuration.descriptorReserve, descriptors / 4)
        let available = limit > 0 ? descriptors - reserve : configuration.maxConnections
        connectionCap = max(1, min(configuration.maxConnections, available))
    }

    func reserveConnection() -> Bool {
        let (_, after) = connections.add(1, ordering: .relaxed)
        if after > connectionCap {
            connections.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() { connections.subtract(1, ordering: .relaxed) }

    /// Whether connections from `peer` count against the per-address cap:
    /// everyone's but a trusted proxy's.
    func countsPerAddress(_ peer: String) -> Bool {
        !configuration.trustedProxies.contains { $0.contains(peer) }
    }

    /// Takes one of `address`'s connection slots; false when it has none left.
    func reserveAddressSlot(_ address: String) -> Bool {
        connectionsByAddress.withLock { counts in
            let open = counts[address, default: 0]
            guard open < configuration.maxConnectionsPerAddress else { return false }
            counts[address] = open + 1
            return true
        }
    }

    func releaseAddressSlot(_ address: String) {
        connectionsByAddress.withLock { counts in
            let left = counts[address, default: 0] - 1
            counts[address] = left > 0 ? left : nil
        }
    }

    /// The client behind a request, believing forwarding headers only from trusted proxies.
    func clientAddress(peer: String, headers: HTTPHeaders) -> String {
        ClientAddress.resolve(peer: peer, headers: headers, trusted: configuration.trustedProxies)
    }

    var openConnections: Int { connections.load(ordering: .relaxed) }
}

/// The HTTP/1.1 server: `start()` binds and returns; `shutdown()` stops
/// accepting, lets in-flight exchanges finish (up to the grace period),
/// closes streams and joins every thread.
public final class Server: Sendable {
    private let core: ServerCore
    private let state = Mutex(RunState())

    private struct RunState {
        var loops: [EventLoop] = []
        var threads: [pthread_t] = []
        var port = 0
        var httpsPort = 0
        var stopped = false
    }

    public init(configuration: ServerConfiguration, responder: any HTTPResponder, logger: Logger = Logger()) {
        core = ServerCore(configuration: configuration, responder: responder, logger: logger)
    }

    public var configuration: ServerConfiguration { core.configuration }
    public var port: Int { state.withLock { $0.port } }
    /// The bound HTTPS port; 0 without `configuration.tls`.
    public var httpsPort: Int { state.withLock { $0.httpsPort } }
    public var openConnections: Int { core.openConnections }
    /// The connection cap in force: the configured one, or less when the
    /// descriptor limit is lower.
    public var connectionCap: Int { core.connectionCap }
    /// Handler threads started so far: they start when work needs them, up
    /// to `configuration.workers`.
    public var workerThreads: Int { core.workers.threadCount }
    /// Disk space reserved by uploads in progress.
    public var uploadBytesInUse: Int64 { core.uploads.bytesInUse }

    /// Binds one listening socket per loop on the same port and starts the
    /// loops. Returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws(ServerError) -> Int {
        // A client that disappears mid-write must cost an EPIPE, not the process.
        signal(SIGPIPE, SIG_IGN)
        let config = core.configuration
        var port = config.port
        var listeners: [Int32] = []
        for _ in 0..<max(1, config.eventLoops) {
            var bound: Int32 = 0
            let fd = kith_listen_tcp(config.host, Int32(port), 1024, 1, &bound)
            guard fd >= 0 else {
                let code = errno
                listeners.forEach { close($0) }
                throw .cannotListen(host: config.host, port: port, errno: code)
            }
            port = Int(bound)
            listeners.append(fd)
        }
        var secureListeners: [Int32] = []
        var httpsPort = config.tls?.port ?? 0
        if config.tls != nil {
            for _ in listeners {
                var bound: Int32 = 0
                let fd = kith_listen_tcp(config.host, Int32(httpsPort), 1024, 1, &bound)
                guard fd >= 0 else {
                    let code = errno
                    (listeners + secureListeners).forEach { close($0) }
                    throw .cannotListen(host: config.host, port: httpsPort, errno: code)
                }
                httpsPort = Int(bound)
                secureListeners.append(fd)
            }
        }
        // Where the plain port sends browsers once HTTPS is on.
        let redirect = config.tls.flatMap { tls in
            tls.plainPassThrough.map { (TLSSettings.origin(domain: tls.domain, port: httpsPort), $0) }
        }
        var loops: [EventLoop] = []
        for (index, fd) in listeners.enumerated() {
            loops.append(
                try EventLoop(
                    index: index, core: core, listener: fd,
                    secureListener: secureListeners.isEmpty ? -1 : secureListeners[index], httpsRedirect: redirect))
        }
        let threads = loops.enumerated().map { index, loop in
            Threads.spawn(name: "kith-io-\(index)") { loop.run() }
        }
        state.withLock {
            $0.loops = loops
            $0.threads = threads
            $0.port = port
            $0.httpsPort = httpsPort
        }
        return port
    }

    /// Graceful stop. Safe to call more than once and from any thread.
    public func shutdown() {
        let (loops, threads) = state.withLock { state -> ([EventLoop], [pthread_t]) in
            if state.stopped { return ([], []) }
            state.stopped = true
            return (state.loops, state.threads)
        }
        guard !loops.isEmpty else { return }
        for loop in loops { loop.beginDrain() }
        let deadline = kith_monotonic_nanos() + UInt64(core.configuration.shutdownGracePeriod * 1e9)
        while core.openConnections > 0 && kith_monotonic_nanos() < deadline {
            usleep(10_000)
        }
        for loop in loops { loop.stop() }
        for thread in threads { Threads.join(thread) }
        core.workers.shutdown()
        core.logger.flush()
    }
}

/// Human-readable byte sizes for messages ("20 MB").
public enum ByteCount {
    public static func format(_ bytes: Int) -> String {
        if bytes >= 1_000_000_000 { return trimmed(Double(bytes) / 1e9) + " GB" }
        if bytes >= 1_000_000 { return trimmed(Double(bytes) / 1e6) + " MB" }
        if bytes >= 1_000 { return trimmed(Double(bytes) / 1e3) + " KB" }
        return "\(bytes) bytes"
    }

    private static func trimmed(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// Waits for SIGTERM, SIGINT or SIGHUP on the calling thread. Call
/// `blockSignals()` first thing in `main`, before any thread starts, so that
/// every thread inherits the mask and only the signalfd sees them.
public enum ShutdownSignal {
    public static func blockSignals() {
        _ = kith_signals_block_and_ignore_pipe()
    }

    /// Blocks until a termination signal arrives; returns its number.
    public static func wait() -> Int32 {
        let fd = kith_signalfd()
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, -1)
            if ready < 0 && errno == EINTR { continue }
            let signal = kith_signalfd_read(fd)
            if signal > 0 { return Int32(signal) }
            if signal < 0 { return -1 }
        }
    }
}
