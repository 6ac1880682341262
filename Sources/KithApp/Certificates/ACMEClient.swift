import Foundation
import Glibc
import KithCrypto
import KithSync

/// An RFC 7807 problem document, as ACME servers explain refusals (RFC 8555 §6.7).
struct ACMEProblem: Decodable, Sendable, CustomStringConvertible {
    var type: String?
    var detail: String?
    var status: Int?
    var subproblems: [ACMEProblem]?

    var description: String {
        var text = (detail ?? "no detail") + " (\(type ?? "no type"))"
        for sub in subproblems ?? [] { text += "; " + sub.description }
        return text
    }
}

/// Why an issuance failed. `publicMessage` suits an operator's terminal;
/// the cause keeps the server's own words.
enum ACMEError: Error, CustomStringConvertible {
    /// The server refused a request.
    case problem(url: String, status: Int, ACMEProblem)
    /// The CA could not validate a challenge: which one and what it saw.
    case challengeFailed(domain: String, type: String, ACMEProblem?)
    /// An answer that does not follow the protocol.
    case protocolViolation(String)
    case transport(url: String, Error)
    case timedOut(String)

    var description: String {
        switch self {
        case .problem(let url, let status, let problem): "the ACME server answered \(status) to \(url): \(problem)"
        case .challengeFailed(let domain, let type, let problem):
            "the \(type) challenge for \(domain) failed: \(problem?.description ?? "the server gave no reason")"
        case .protocolViolation(let detail): "unexpected ACME answer: \(detail)"
        case .transport(let url, let error): "cannot reach \(url): \(error)"
        case .timedOut(let what): "gave up waiting for \(what)"
        }
    }
}

/// The directory's endpoints (RFC 8555 §7.1.1).
struct ACMEDirectory: Decodable {
    var newNonce: String
    var newAccount: String
    var newOrder: String
}

struct ACMEOrder: Decodable {
    var status: String
    var authorizations: [String]
    var finalize: String
    var certificate: String?
    var error: ACMEProblem?
}

struct ACMEAuthorization: Decodable {
    struct Identifier: Decodable { var value: String }
    struct Challenge: Decodable {
        var type: String
        var url: String
        var token: String?
        var status: String
        var error: ACMEProblem?
    }
    var status: String
    var identifier: Identifier
    var challenges: [Challenge]
}

/// A blocking RFC 8555 client: account, order, one challenge per
/// authorisation, finalize with a fresh key's CSR, download the chain.
/// Run it on a background thread; each request waits on the network.
final class ACMEClient: Sendable {
    let directoryURL: String
    private let http: HTTPSClient
    private let accountKey: P256Key
    private let contact: String?
    /// Pauses between polls; tests against a local CA keep them short.
    private let pause: @Sendable (Double) -> Void
    private let nonces = Lock<[String]>([])
    private let state = Lock<(directory: ACMEDirectory?, account: String?)>((nil, nil))
    /// Polls of one authorisation or order before giving up.
    static let maximumPolls = 60

    init(
        directoryURL: String, http: HTTPSClient, accountKey: P256Key, contact: String?,
        pause: @escaping @Sendable (Double) -> Void = { usleep(UInt32(min($0, 60) * 1_000_000)) }
    ) {
        self.directoryURL = directoryURL
        self.http = http
        self.accountKey = accountKey
        self.contact = contact
        self.pause = pause
    }

    /// The key authorisation for a challenge token (RFC 8555 §8.1).
    func keyAuthorization(token: String) -> String { token + "." + JWK.thumbprint(of: accountKey) }

    /// Runs one order to the end and returns the PEM chain. `respond` puts
    /// a challenge's answer in place and returns how to take it down again.
    func issue(
        domains: [String], certificateKey: P256Key, challengeType: String,
        respond: (_ domain: String, _ token: String, _ keyAuthorization: String) throws -> () -> Void
    ) throws -> [UInt8] {
        let directory = try self.directory()
        let account = try self.account(directory)
        let identifiers = domains.map { "{\"type\":\"dns\",\"value\":\(JSONString.quoted($0))}" }.joined(separator: ",")
        let created = try post(directory.newOrder, payload: "{\"identifiers\":[\(identifiers)]}", account: account)
        guard let orderURL = created.header("Location") else { throw ACMEError.protocolViolation("a new order without a Location") }
        var order: ACMEOrder = try decode(created.body, orderURL)

        for authorizationURL in order.authorizations {
            let authorization: ACMEAuthorization = try decode(try post(authorizationURL, payload: nil, account: account).body, authorizationURL)
            if authorization.status == "valid" { continue }
            let domain = authorization.identifier.value
            // The token becomes a URL path segment and a file-like key: base64url only (RFC 8555 §8.3).
            guard let challenge = authorization.challenges.first(where: { $0.type == challengeType }), let token = challenge.token,
                !token.isEmpty, token.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0.isLetterOrDigit })
            else {
                throw ACMEError.protocolViolation("no usable \(challengeType) challenge offered for \(domain)")
            }
            let takeDown = try respond(domain, token, keyAuthorization(token: token))
            defer { takeDown() }
            _ = try post(challenge.url, payload: "{}", account: account)
            let settled: ACMEAuthorization = try poll(authorizationURL, account: account, what: "the \(challengeType) validation of \(domain)") {
                $0.status != "pending" && $0.status != "processing"
            }
            guard settled.status == "valid" else {
                let seen = settled.challenges.first { $0.type == challengeType }?.error
                throw ACMEError.challengeFailed(domain: domain, type: challengeType, seen)
            }
        }

        order = try poll(orderURL, account: account, what: "the order to become ready") { $0.status != "pending" }
        guard order.status == "ready" || order.status == "valid" else {
            throw ACMEError.protocolViolation("order \(order.status): \(order.error?.description ?? "no reason given")")
        }
        if order.status == "ready" {
            let request = try CertificateBuilder.certificateRequest(domains: domains, key: certificateKey)
            _ = try post(order.finalize, payload: "{\"csr\":\"\(Base64URL.encode(request))\"}", account: account)
            order = try poll(orderURL, account: account, what: "the certificate to be issued") { $0.status == "valid" || $0.status == "invalid" }
        }
        guard order.status == "valid", let certificateURL = order.certificate else {
            throw ACMEError.protocolViolation("order \(order.status): \(order.error?.description ?? "no certificate")")
        }
        return try post(certificateURL, payload: nil, account: account, accept: "application/pem-certificate-chain").body
    }

    // MARK: Account and directory

    private func directory() throws -> ACMEDirectory {
        if let known = state.withLock({ $0.directory }) { return known }
        let response = try send("GET", directoryURL)
        guard response.status == 200 else { throw ACMEError.protocolViolation("the directory answered \(response.status)") }
        let directory: ACMEDirectory = try decode(response.body, directoryURL)
        state.withLock { $0.directory = directory }
        return directory
    }

    /// The account URL; newAccount with the same key finds an existing
    /// account, so the key file alone is the account.
    private func account(_ directory: ACMEDirectory) throws -> String {
        if let known = state.withLock({ $0.account }) { return known }
        let contactMember = contact.map { ",\"contact\":[\(JSONString.quoted("mailto:" + $0))]" } ?? ""
        let response = try post(directory.newAccount, payload: "{\"termsOfServiceAgreed\":true\(contactMember)}", account: nil)
        guard let url = response.header("Location") else { throw ACMEError.protocolViolation("a new account without a Location") }
        state.withLock { $0.account = url }
        return url
    }

    // MARK: Requests

    /// A signed POST (`payload` nil: POST-as-GET). A `badNonce` refusal is
    /// retried with the fresh nonce it carries, as RFC 8555 §6.5 expects.
    private func post(_ url: String, payload: String?, account: String?, accept: String? = nil) throws -> HTTPSResponse {
        for attempt in 1...4 {
            let nonce = try takeNonce()
            let body = try JWS.sign(payload: payload.map { Array($0.utf8) }, url: url, nonce: nonce, keyID: account, key: accountKey)
            var headers = [("Content-Type", "application/jose+json")]
            if let accept { headers.append(("Accept", accept)) }
            let response = try send("POST", url, headers: headers, body: body)
            if response.status < 400 { return response }
            let problem = (try? JSONDecoder().decode(ACMEProblem.self, from: Data(response.body))) ?? ACMEProblem(
                detail: String(decoding: response.body.prefix(200), as: UTF8.self))
            if problem.type == "urn:ietf:params:acme:error:badNonce" && attempt < 4 { continue }
            throw ACMEError.problem(url: url, status: response.status, problem)
        }
        throw ACMEError.timedOut("a nonce the server accepts")
    }

    /// Every response carries a fresh nonce; one is fetched only when none is left.
    private func takeNonce() throws -> String {
        if let nonce = nonces.withLock({ $0.popLast() }) { return nonce }
        let url = try directory().newNonce
        _ = try send("HEAD", url)
        guard let nonce = nonces.withLock({ $0.popLast() }) else { throw ACMEError.protocolViolation("newNonce gave no Replay-Nonce") }
        return nonce
    }

    private func send(_ method: String, _ url: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> HTTPSResponse {
        let response: HTTPSResponse
        do {
            response = try http.request(method, url, headers: headers, body: body)
        } catch {
            throw ACMEError.transport(url: url, error)
        }
        if let nonce = response.header("Replay-Nonce"), !nonce.isEmpty { nonces.withLock { $0.append(nonce) } }
        return response
    }

    /// POST-as-GET until `done`, waiting as long as Retry-After asks (within reason).
    private func poll<T: Decodable>(_ url: String, account: String, what: String, until done: (T) -> Bool) throws -> T {
        for _ in 0..<Self.maximumPolls {
            let response = try post(url, payload: nil, account: account)
            let value: T = try decode(response.body, url)
            if done(value) { return value }
            let delay = response.header("Retry-After").flatMap { Double($0) } ?? 1
            pause(max(0.05, min(delay, 60)))
        }
        throw ACMEError.timedOut(what)
    }

    private func decode<T: Decodable>(_ body: [UInt8], _ url: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch {
            throw ACMEError.protocolViolation("\(url) sent JSON Kith cannot read: \(error)")
        }
    }
}

extension UInt8 {
    fileprivate var isLetterOrDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
