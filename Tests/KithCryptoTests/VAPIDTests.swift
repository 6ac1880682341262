import Foundation
import KithCrypto
import Testing

@Suite("VAPID (RFC 8292): ES256 tokens and the Authorization header")
struct VAPIDTests {
    static func claims(_ json: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
    }

    @Test("a signed token verifies with the public key and carries aud, exp and sub")
    func signAndVerify() throws {
        let key = try P256Key.generate()
        let now: Int64 = 1_700_000_000
        let token = try VAPID.token(
            key: key, audience: "https://push.example.net", subject: "mailto:admin@example.com", expiresAt: now + 3600, now: now)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        #expect(Base64URL.decode(String(parts[0])) == Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        #expect(Base64URL.decode(String(parts[2]))?.count == 64, "R || S, not DER")
        let json = try #require(VAPID.verify(token: token, publicKey: key.publicKey))
        let claims = try Self.claims(json)
        #expect(claims["aud"] as? String == "https://push.example.net")
        #expect(claims["sub"] as? String == "mailto:admin@example.com")
        #expect((claims["exp"] as? NSNumber)?.int64Value == now + 3600)
    }

    @Test("an altered claim, signature or another key's token does not verify")
    func tamperedFails() throws {
        let key = try P256Key.generate()
        let token = try VAPID.token(key: key, audience: "https://a.example", subject: "mailto:a@example.com", expiresAt: 2_000, now: 1_000)
        var parts = token.split(separator: ".").map(String.init)
        let forged = "{\"aud\":\"https://b.example\",\"exp\":2000,\"sub\":\"mailto:a@example.com\"}"
        let withForgedClaims = [parts[0], Base64URL.encode(Array(forged.utf8)), parts[2]].joined(separator: ".")
        #expect(VAPID.verify(token: withForgedClaims, publicKey: key.publicKey) == nil)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 1
        parts[2] = Base64URL.encode(signature)
        #expect(VAPID.verify(token: parts.joined(separator: "."), publicKey: key.publicKey) == nil)
        #expect(VAPID.verify(token: token, publicKey: try P256Key.generate().publicKey) == nil)
        #expect(VAPID.verify(token: "a.b", publicKey: key.publicKey) == nil)
    }

    @Test("exp is never more than 24 hours ahead")
    func expiryClamped() throws {
        let key = try P256Key.generate()
        let now: Int64 = 1_700_000_000
        let token = try VAPID.token(key: key, audience: "https://a.example", subject: "mailto:a@example.com", expiresAt: now + 7 * 86_400, now: now)
        let claims = try Self.claims(try #require(VAPID.verify(token: token, publicKey: key.publicKey)))
        let exp = try #require((claims["exp"] as? NSNumber)?.int64Value)
        #expect(exp > now && exp <= now + 86_400)
    }

    @Test("the header is `vapid t=<jwt>, k=<key>` with the endpoint's origin as audience")
    func headerShape() throws {
        let key = try P256Key.generate()
        let now: Int64 = 1_700_000_000
        let header = try VAPID.authorization(
            key: key, endpoint: "https://fcm.googleapis.com:443/fcm/send/abc?x=1", subject: "https://kith.example", now: now)
        let match = try #require(header.wholeMatch(of: /vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)/))
        #expect(Base64URL.decode(String(match.2)) == key.publicKey)
        let claims = try Self.claims(try #require(VAPID.verify(token: String(match.1), publicKey: key.publicKey)))
        #expect(claims["aud"] as? String == "https://fcm.googleapis.com")
        let exp = try #require((claims["exp"] as? NSNumber)?.int64Value)
        #expect(exp > now && exp <= now + 86_400)
    }

    @Test("audiences are scheme, host and non-default port only")
    func audiences() {
        #expect(VAPID.audience(of: "https://Push.Example.net/wpush/v2/x") == "https://push.example.net")
        #expect(VAPID.audience(of: "https://127.0.0.1:8443/p") == "https://127.0.0.1:8443")
        #expect(VAPID.audience(of: "ftp://x/y") == nil)
        #expect(VAPID.audience(of: "https:///x") == nil)
        #expect(VAPID.audience(of: "https://user@host/x") == nil)
    }

    @Test("claims with quotes and control characters stay valid JSON")
    func jsonEscaping() throws {
        let key = try P256Key.generate()
        let token = try VAPID.token(key: key, audience: "https://a.example", subject: "mailto:\"x\"\\\n@example.com", expiresAt: 2_000, now: 1_000)
        let claims = try Self.claims(try #require(VAPID.verify(token: token, publicKey: key.publicKey)))
        #expect(claims["sub"] as? String == "mailto:\"x\"\\\n@example.com")
    }
}
