import KithCrypto
import KithHTTP

/// The app's password hashing: Argon2id behind a gate with a bounded line
/// (`PasswordHasher`). When the line is full the request is answered at
/// once with a 503 that asks to try again shortly, instead of parking one
/// more worker thread behind the hashes — a flood of sign-ups then slows
/// sign-ups, not every other page.
struct Passwords: Sendable {
    let hasher: PasswordHasher

    init(parameters: PasswordHasher.Parameters, maxWaiting: Int?, workers: Int) {
        let concurrent = Self.concurrentHashes
        hasher = PasswordHasher(
            parameters: parameters, maxConcurrentHashes: concurrent,
            maxWaiting: maxWaiting ?? Self.defaultMaxWaiting(concurrentHashes: concurrent, workers: workers))
    }

    /// Hashes at once: one per core but one, so that however many sign-ins
    /// arrive, a core is left for everyone else's pages.
    static var concurrentHashes: Int { max(1, PasswordHasher.defaultConcurrentHashes - 1) }

    /// Four callers per core may wait, but never so many that hashing (running
    /// and waiting) holds more than half the handler threads: the rest keep
    /// serving pages while sign-ups queue.
    static func defaultMaxWaiting(concurrentHashes: Int, workers: Int) -> Int {
        max(1, min(PasswordHasher.defaultMaxWaiting(concurrentHashes: concurrentHashes), workers / 2 - concurrentHashes))
    }

    /// The answer when the line is full. Nothing is written before a hash, so
    /// it can say so.
    static func busy(_ cause: PasswordHasher.Busy) -> HTTPError {
        var headers = HTTPHeaders()
        headers.add("Retry-After", "5")
        return HTTPError(
            .serviceUnavailable, "Kith is very busy right now, so nothing was changed. Please try again in a few seconds.",
            cause: cause, headers: headers)
    }

    func hash(password: String) throws(HTTPError) -> String {
        do { return try hasher.hash(password: password) } catch { throw Self.busy(error) }
    }

    func verify(password: String, encoded: String) throws(HTTPError) -> Bool {
        do { return try hasher.verify(password: password, encoded: encoded) } catch { throw Self.busy(error) }
    }

    func performDummyVerification(password: String) throws(HTTPError) {
        do { try hasher.performDummyVerification(password: password) } catch { throw Self.busy(error) }
    }

    func needsRehash(encoded: String) -> Bool { hasher.needsRehash(encoded: encoded) }
}
