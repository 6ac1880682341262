/// Everything the engine can be told. Defaults suit a small group's server on
/// a small machine; every limit can be changed.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (tests).
    public var port = 8080
    /// Threads running epoll loops, each with its own listening socket (SO_REUSEPORT).
    public var eventLoops = 2
    /// Threads running handlers.
    public var workers = 16
    /// Requests waiting for a worker before new ones are answered 503.
    public var workQueueCapacity = 4096
    /// The most connections open at once. Lowered at start to fit the
    /// process's descriptor limit (`RLIMIT_NOFILE`), less `descriptorReserve`.
    public var maxConnections = 16_384
    /// Descriptors kept free for the database, uploads, media files and logs.
    public var descriptorReserve = 128
    /// The most connections one client address may hold open. Connections
    /// from a trusted proxy are not counted here (the proxy is everybody);
    /// the application limits what each real client behind it may do.
    public var maxConnectionsPerAddress = 256
    /// Proxies whose `X-Forwarded-For` / `Forwarded` headers are believed
    /// about who the client is. Empty: the socket peer is the client.
    public var trustedProxies: [AddressBlock] = []
    /// The most body bytes held in memory for any request: urlencoded forms,
    /// raw bodies and the text fields of multipart forms. Files go to disk.
    public var maxBufferedBodyBytes = 64 * 1024
    /// Disk space for uploads in progress, in all and per client address.
    public var uploadSpaceBytes: Int64 = 4 << 30
    public var uploadSpacePerAddressBytes: Int64 = 1 << 30
    public var parserLimits = HTTPParser.Limits()

    /// From the first byte of a request until its head is complete.
    public var headerTimeout: Double = 10
    /// A body that makes no progress for this long is abandoned. There is no
    /// total deadline: a phone may take many minutes to upload a video.
    public var bodyProgressTimeout: Double = 60
    /// A client that reads none of its response for this long is dropped.
    public var writeProgressTimeout: Double = 60
    /// An idle keep-alive connection is closed after this long.
    public var keepAliveTimeout: Double = 30
    /// After refusing a body: how long to keep reading (and discarding) so the
    /// client sees the response instead of a reset.
    public var lingerTimeout: Double = 2
    /// How long shutdown waits for in-flight requests before closing anyway.
    public var shutdownGracePeriod: Double = 30

    /// Bytes a streaming response may have waiting before its consumer is dropped.
    public var maxStreamUnsentBytes = 256 * 1024
    /// Speaks HTTP/2 to clients that ask for it: by ALPN "h2" under TLS, or
    /// on cleartext by opening with the HTTP/2 preface (prior knowledge).
    public var http2 = true
    /// Requests one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).
    public var http2MaxConcurrentStreams = 100
    /// Client stream resets one HTTP/2 connection may send in a burst, and
    /// per second after it; past that the connection ends with GOAWAY
    /// (the "rapid reset" attack, CVE-2023-44487).
    public var http2ResetBurst = 1000
    public var http2ResetsPerSecond = 33
    /// Where multipart file parts are streamed while a request is read.
    public var temporaryDirectory = "/tmp"
    /// Compresses text bodies over its threshold for clients that accept
    /// it, on the worker that made them; nil sends every body as it is.
    public var compression: ResponseCompressor? = ResponseCompressor()
    /// Added to every response that does not set the same header itself.
    public var defaultHeaders = HTTPHeaders()
    /// Added, on the same terms, only to responses a browser may show as a
    /// page or run as a worker (`Response.Kind.document`): a content policy,
    /// a permissions policy and the like mean nothing on a stylesheet, a
    /// script or an image, and would cost every asset of a first visit their bytes.
    public var documentHeaders = HTTPHeaders()
    /// HTTPS on a second port; nil: plain HTTP only.
    public var tls: TLSSettings?

    public init() {}
}
