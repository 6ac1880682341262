import KithHTTP

/// The app on the engine: what `kith serve` runs and what tests start on port 0.
public final class KithServer: Sendable {
    public let app: KithApp
    public let server: Server
    /// With HTTPS on: what the HTTPS port serves (the ACME client installs
    /// into it), and the files it is loaded from and watched in.
    public let certificates: TLSCertificates?
    public let certificateFiles: TLSCertificateFiles?

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
        (engine.defaultHeaders, engine.documentHeaders) = KithApp.securityHeaders()
        if let httpsPort = config.httpsPort, let domain = config.domain {
            let certificates = TLSCertificates(offeringH2: engine.http2)
            let paths = config.certificatePaths
            engine.tls = TLSSettings(certificates: certificates, domain: domain, port: httpsPort)
            self.certificates = certificates
            app.certificates.attach(certificates)
            certificateFiles = TLSCertificateFiles(chainPath: paths.chain, keyPath: paths.key, certificates: certificates, logger: app.logger)
        } else {
            certificates = nil
            certificateFiles = nil
        }
        server = Server(configuration: engine, responder: app, logger: app.logger)
    }

    /// How often the certificate files are looked at for a renewal.
    static let certificateCheckSeconds: Double = 60

    /// Binds and starts serving; returns the port.
    @discardableResult
    public func start() throws -> Int {
        app.live.start()
        app.notifications.start()
        app.push.start()
        app.backgroundTasks.startAll()
        if let files = certificateFiles {
            // An operator's own files must be there; DATA/certs may still be
            // empty while a certificate is being obtained.
            if files.exist || app.configuration.certificateFile != nil { try files.reloadIfChanged() }
            files.watch(every: Self.certificateCheckSeconds)
        }
        let port = try server.start()
        app.serverStarted(port: port, httpsPort: certificates == nil ? nil : server.httpsPort)
        return port
    }

    /// Waits, within `seconds`, for what the background threads do at start
    /// (each sweep and scheduler catches up once), so start-up's memory can
    /// be handed back after all of start-up's work rather than during it.
    /// True when all of it finished in time.
    @discardableResult
    public func waitForStartRuns(seconds: Double) -> Bool {
        let deadline = PeriodicTask.deadline(afterSeconds: seconds)
        let swept = app.notifications.waitForStartSweep(until: deadline)
        return app.backgroundTasks.settleAll(until: deadline) && swept
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
        certificateFiles?.stopWatching()
        app.database.close()
    }

    public var port: Int { server.port }
    public var httpsPort: Int { server.httpsPort }

    /// SIGHUP: look at the certificate files now rather than on the next tick.
    public func reloadCertificates() { certificateFiles?.reloadLogging() }
}
