import KithHTTP

/// The app on the engine: what `kith serve` runs and what tests start on port 0.
public final class KithServer: Sendable {
    public let app: KithApp
    public let server: Server

    public init(app: KithApp) {
        self.app = app
        let config = app.configuration
        var engine = ServerConfiguration()
        engine.host = config.host
        engine.port = config.port
        engine.eventLoops = config.eventLoops
        engine.workers = config.workers
        engine.temporaryDirectory = config.dataDirectory + "/tmp"
        engine.trustedProxies = config.trustedProxies
        engine.maxConnectionsPerAddress = config.maxConnectionsPerAddress
        engine.uploadSpaceBytes = config.uploadSpaceBytes
        engine.uploadSpacePerAddressBytes = config.uploadSpacePerAddressBytes
        engine.defaultHeaders = KithApp.securityHeaders()
        server = Server(configuration: engine, responder: app, logger: app.logger)
    }

    /// Binds and starts serving; returns the port.
    @discardableResult
    public func start() throws -> Int {
        app.live.start()
        app.notifications.start()
        app.push.start()
        app.backgroundTasks.startAll()
        let port = try server.start()
        app.serverStarted(port: port)
        return port
    }

    /// Finishes in-flight requests, closes streams, then the database.
    public func shutdown() {
        // Streams first: an open event stream would otherwise hold shutdown
        // for its whole grace period.
        app.live.stop()
        server.shutdown()
        app.notifications.stop()
        app.push.stop()
        app.backgroundTasks.stopAll()
        app.database.close()
    }

    public var port: Int { server.port }
}
