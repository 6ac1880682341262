import Glibc
import Synchronization

/// A certificate chain and key on disk, installed into `TLSCertificates` at
/// start and again whenever either file changes: a renewal written by
/// certbot, or by the ACME client, is served without a restart. Checked on
/// a timer (`watch`) and on demand (`reloadIfChanged`, for SIGHUP).
public final class TLSCertificateFiles: Sendable {
    public let chainPath: String
    public let keyPath: String
    private let certificates: TLSCertificates
    private let logger: Logger
    /// What the files looked like when last installed (or last found broken,
    /// so a bad file is reported once, not on every tick).
    private let seen = Mutex<[FileSignature]>([])
    private let watcher = Monitor()
    private let watching = Mutex<(thread: pthread_t?, stop: Bool)>((nil, false))

    struct FileSignature: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanos: Int
    }

    public init(chainPath: String, keyPath: String, certificates: TLSCertificates, logger: Logger) {
        self.chainPath = chainPath
        self.keyPath = keyPath
        self.certificates = certificates
        self.logger = logger
    }

    public var exist: Bool { access(chainPath, R_OK) == 0 && access(keyPath, R_OK) == 0 }

    /// Installs the files if they changed since last time. Returns true when
    /// a new certificate was installed; throws when the files are there but
    /// unreadable or do not match (the certificate in use stays).
    @discardableResult
    public func reloadIfChanged() throws -> Bool {
        guard let signatures = signatures(), signatures != seen.withLock({ $0 }) else { return false }
        seen.withLock { $0 = signatures }
        guard let chain = StaticFiles.read(chainPath), let key = StaticFiles.read(keyPath) else {
            throw TLSCertificateError("The certificate or key file could not be read: \(chainPath), \(keyPath).")
        }
        try certificates.install(chainPEM: chain, keyPEM: key)
        return true
    }

    /// Checks the files every `interval` seconds on a thread of its own,
    /// logging what it installs or refuses, and rotates session-ticket keys.
    public func watch(every interval: Double) {
        let thread = Threads.spawn(name: "kith-certs") { [self] in
            while true {
                let stop = watcher.withLock { () -> Bool in
                    if watching.withLock({ $0.stop }) { return true }
                    _ = watcher.wait(seconds: interval)
                    return watching.withLock { $0.stop }
                }
                if stop { return }
                reloadLogging()
                certificates.rotateTicketKeysIfDue()
            }
        }
        watching.withLock { $0.thread = thread }
    }

    public func stopWatching() {
        let thread = watching.withLock { state -> pthread_t? in
            state.stop = true
            defer { state.thread = nil }
            return state.thread
        }
        watcher.withLock { watcher.broadcast() }
        if let thread { Threads.join(thread) }
    }

    /// `reloadIfChanged`, with the outcome in the log instead of thrown.
    public func reloadLogging() {
        do {
            if try reloadIfChanged() {
                let facts = certificates.current
                logger.log(["level": "info", "msg": "TLS certificate installed", "serial": facts?.serial ?? "-", "file": chainPath])
            }
        } catch let error as TLSCertificateError {
            logger.log(["level": "error", "msg": error.message, "cause": error.cause])
        } catch {
            logger.log(["level": "error", "msg": "TLS certificate not installed", "cause": "\(error)"])
        }
        logger.flush()
    }

    private func signatures() -> [FileSignature]? {
        var result: [FileSignature] = []
        for path in [chainPath, keyPath] {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            result.append(
                FileSignature(
                    device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                    modified: info.st_mtim.tv_sec, modifiedNanos: info.st_mtim.tv_nsec))
        }
        return result
    }
}
