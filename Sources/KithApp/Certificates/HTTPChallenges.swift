import KithSync

/// The http-01 key authorisations being validated right now, by token.
/// Held in memory only: a challenge lives for seconds, inside one issuance.
public final class HTTPChallenges: Sendable {
    private let answers = Lock<[String: String]>([:])

    public init() {}

    func set(token: String, keyAuthorization: String) { answers.withLock { $0[token] = keyAuthorization } }
    func remove(token: String) { _ = answers.withLock { $0.removeValue(forKey: token) } }
    func keyAuthorization(for token: String) -> String? { answers.withLock { $0[token] } }
}
