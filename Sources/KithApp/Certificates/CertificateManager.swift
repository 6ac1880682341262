import Glibc
import KithCrypto
import KithHTTP
import KithSync

/// Keeps Kith's own certificate current: installs the stored one at start,
/// and renews it over ACME when `renewBeforeSeconds` or less remain, with
/// exponential backoff after a failure so a broken setup does not hammer
/// the CA (Let's Encrypt rate-limits failed validations).
public final class CertificateManager: Sendable {
    /// What one check did; tests and `kith certificate` read it.
    public enum Outcome: Sendable, Equatable {
        case disabled
        /// The certificate is good until `notAfter`; nothing was asked of the CA.
        case current(notAfter: Int64)
        /// Issued or renewed: the new certificate's serial and expiry.
        case issued(serial: String, notAfter: Int64)
        /// The last attempt failed and the next is not due before `retryAt`.
        case waiting(retryAt: Int64)
        case failed(message: String, retryAt: Int64)
    }

    public let options: ACMEOptions
    public let challenges = HTTPChallenges()
    let store: CertificateStore
    private let logger: Logger
    private let clock: @Sendable () -> Int64
    private let pause: @Sendable (Double) -> Void
    private struct State {
        var client: ACMEClient?
        var installedSerial: String?
        var failures = 0
        var retryAt: Int64 = 0
    }
    private let state = Lock(State())
    private let attached = Lock<(any CertificateInstalling)?>(nil)
    /// Where certificates go once attached: the TLS layer (or a recorder, in
    /// tests). Until then certificates are only stored.
    private var installer: (any CertificateInstalling)? { attached.withLock { $0 } }
    /// One issuance at a time: the background check and a foreground
    /// `issueNow` would otherwise race on the same files.
    private let running = Lock(())

    init(
        options: ACMEOptions, dataDirectory: String, logger: Logger, clock: @escaping @Sendable () -> Int64,
        pause: @escaping @Sendable (Double) -> Void = { usleep(UInt32(min($0, 60) * 1_000_000)) }
    ) {
        self.options = options
        store = CertificateStore(dataDirectory: dataDirectory)
        self.logger = logger
        self.clock = clock
        self.pause = pause
    }

    /// The name logged for the certificate: the first domain.
    var primaryDomain: String? { options.domains.first }

    /// Hands certificates to the HTTPS port from now on, starting with the
    /// stored one, so a restart serves it before any renewal is due.
    public func attach(_ installer: any CertificateInstalling) {
        attached.withLock { $0 = installer }
        if let stored = store.certificate(), let facts = usableFacts(stored) { installIfNew(stored, facts) }
    }

    /// The daily-or-more-often look, on the background thread.
    public var backgroundTask: BackgroundTask {
        let task = PeriodicTask("acme-renewal", every: options.checkIntervalSeconds) { [self] in _ = check() }
        return task.backgroundTask
    }

    /// Installs the stored certificate if it is not installed yet, and
    /// renews it when due and no backoff is pending.
    @discardableResult
    public func check() -> Outcome {
        guard let domain = primaryDomain else { return .disabled }
        return running.withLock { _ in
            let now = clock()
            if let stored = store.certificate(), let facts = usableFacts(stored) {
                installIfNew(stored, facts)
                if facts.notAfter - now > options.renewBeforeSeconds { return .current(notAfter: facts.notAfter) }
            }
            let retryAt = state.withLock { $0.retryAt }
            if now < retryAt { return .waiting(retryAt: retryAt) }
            return issueLocked(domain, now: now)
        }
    }

    /// Issues a certificate whatever the stored one's expiry (`kith certificate`).
    public func issueNow() -> Outcome {
        guard let domain = primaryDomain else { return .disabled }
        return running.withLock { _ in issueLocked(domain, now: clock()) }
    }

    private func issueLocked(_ domain: String, now: Int64) -> Outcome {
        do {
            let certificateKey = try P256Key.generate()
            let keyPEM = try certificateKey.privateKeyPEM()
            let chainPEM = try client().issue(
                domains: options.domains, certificateKey: certificateKey, challengeType: options.challenge.rawValue,
                respond: respond)
            guard let facts = CertificateFacts.chain(pem: chainPEM).first,
                Certificates.keyMatches(chainPEM: chainPEM, keyPEM: keyPEM)
            else { throw ACMEError.protocolViolation("the downloaded chain does not hold a certificate for the new key") }
            try store.save(chainPEM: chainPEM, keyPEM: keyPEM)
            installIfNew((chainPEM, keyPEM), facts)
            state.withLock {
                $0.failures = 0
                $0.retryAt = 0
            }
            logger.log([
                "level": "info", "msg": "certificate issued", "domain": domain, "serial": facts.serial,
                "not_after": String(facts.notAfter),
            ])
            return .issued(serial: facts.serial, notAfter: facts.notAfter)
        } catch {
            let retryAt = state.withLock { state -> Int64 in
                state.failures += 1
                let backoff = options.firstBackoffSeconds << Int64(min(state.failures - 1, 20))
                state.retryAt = now + min(backoff, options.maximumBackoffSeconds)
                return state.retryAt
            }
            logger.log([
                "level": "error", "msg": "certificate not issued", "domain": domain, "cause": "\(error)",
                "retry_at": String(retryAt),
            ])
            return .failed(message: "\(error)", retryAt: retryAt)
        }
    }

    /// Puts one challenge's answer where the CA will look, and returns how to remove it.
    private func respond(domain: String, token: String, keyAuthorization: String) throws -> () -> Void {
        switch options.challenge {
        case .http01:
            challenges.set(token: token, keyAuthorization: keyAuthorization)
            return { [challenges] in challenges.remove(token: token) }
        case .tlsALPN01:
            guard let installer else {
                throw ACMEError.protocolViolation("tls-alpn-01 needs the TLS layer, and none is configured")
            }
            let key = try P256Key.generate()
            let certificate = try CertificateBuilder.challengeCertificatePEM(
                domain: domain, keyAuthorization: keyAuthorization, key: key, now: clock())
            try installer.setChallenge(domain: domain, chainPEM: certificate, keyPEM: try key.privateKeyPEM())
            return { installer.removeChallenge(domain: domain) }
        }
    }

    /// Facts of a stored pair whose key matches; a mismatched pair (a crash
    /// between writes) counts as no certificate.
    private func usableFacts(_ stored: (chainPEM: [UInt8], keyPEM: [UInt8])) -> CertificateFacts? {
        guard Certificates.keyMatches(chainPEM: stored.chainPEM, keyPEM: stored.keyPEM) else { return nil }
        return CertificateFacts.chain(pem: stored.chainPEM).first
    }

    private func installIfNew(_ pair: (chainPEM: [UInt8], keyPEM: [UInt8]), _ facts: CertificateFacts) {
        guard let installer, state.withLock({ $0.installedSerial }) != facts.serial else { return }
        do {
            try installer.install(chainPEM: pair.chainPEM, keyPEM: pair.keyPEM)
            state.withLock { $0.installedSerial = facts.serial }
        } catch {
            logger.log(["level": "error", "msg": "certificate not installed", "serial": facts.serial, "cause": "\(error)"])
        }
    }

    private func client() throws -> ACMEClient {
        if let client = state.withLock({ $0.client }) { return client }
        // The operator names the directory, unlike a push endpoint a user
        // supplies, so a CA on a private address (a local test CA) is fine.
        let http = try HTTPSClient(extraCAFile: options.caFile, allowLocalAddresses: true)
        let client = ACMEClient(
            directoryURL: options.directoryURL, http: http, accountKey: try store.accountKey(), contact: options.email,
            pause: pause)
        state.withLock { $0.client = client }
        return client
    }
}
