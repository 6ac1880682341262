import Foundation
import KithCrypto
import Testing

@Suite struct ACMECryptoTests {
    /// RFC 7638 §3.1's worked example (an RSA key): the canonical form and
    /// hash must come out exactly as printed there.
    @Test func thumbprintMatchesRFC7638Example() {
        let members = [
            "e": "AQAB", "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        ]
        #expect(Base64URL.encode(JWK.thumbprint(requiredMembers: members)) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(JWK.canonicalJSON(["y": "2", "x": "1", "kty": "EC", "crv": "P-256"]) == #"{"crv":"P-256","kty":"EC","x":"1","y":"2"}"#)
    }

    /// The flattened JWS carries ES256 in its header, the key (jwk) or the
    /// account (kid), the nonce and URL, and a 64-byte r||s signature that
    /// verifies under the account key over `protected.payload`.
    @Test func jwsVerifies() throws {
        let key = try P256Key.generate()
        for keyID in [nil, "https://ca.example/acct/1"] as [String?] {
            let body = try JWS.sign(payload: Array(#"{"a":1}"#.utf8), url: "https://ca.example/new", nonce: "n0nce", keyID: keyID, key: key)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
            let protected = try #require(object["protected"]), payload = try #require(object["payload"])
            let encodedSignature = try #require(object["signature"])
            let signature = try #require(Base64URL.decode(encodedSignature))
            #expect(signature.count == 64)
            #expect(ES256.verify(signature, message: Array((protected + "." + payload).utf8), key: key))
            #expect(!ES256.verify(signature, message: Array((protected + "." + payload + "x").utf8), key: key))
            let headerBytes = try #require(Base64URL.decode(protected))
            let header = try #require(try JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any])
            #expect(header["alg"] as? String == "ES256" && header["nonce"] as? String == "n0nce")
            #expect(header["url"] as? String == "https://ca.example/new")
            if let keyID {
                #expect(header["kid"] as? String == keyID && header["jwk"] == nil)
            } else {
                let jwk = try #require(header["jwk"] as? [String: String])
                #expect(JWK.members(of: key) == jwk && header["kid"] == nil)
            }
        }
        // POST-as-GET: an empty payload, still signed.
        let empty = try JWS.sign(payload: nil, url: "https://ca.example/o", nonce: "n", keyID: "k", key: key)
        #expect(String(decoding: empty, as: UTF8.self).contains(#""payload":"""#))
    }

    /// The CSR finalize sends parses, its signature verifies, and it asks
    /// for exactly the order's names with the first as common name.
    @Test func certificateRequestParses() throws {
        let key = try P256Key.generate()
        let der = try CertificateBuilder.certificateRequest(domains: ["kith.example.org", "www.kith.example.org"], key: key)
        let facts = try #require(Certificates.requestFacts(der: der))
        #expect(facts.subject == "/CN=kith.example.org")
        #expect(facts.dnsNames == ["kith.example.org", "www.kith.example.org"])
        var tampered = der
        tampered[tampered.count - 5] ^= 0x01
        #expect(Certificates.requestFacts(der: tampered) == nil)
        #expect(throws: X509Error.self) { try CertificateBuilder.certificateRequest(domains: ["a.example,DNS:evil.example"], key: key) }
    }

    /// RFC 8737 §3: SAN is the domain alone, and the critical
    /// acmeIdentifier holds the DER OCTET STRING of SHA-256(key authorisation).
    @Test func tlsALPNChallengeCertificate() throws {
        let key = try P256Key.generate()
        let keyAuthorization = "token123.thumbprint456"
        let pem = try CertificateBuilder.challengeCertificatePEM(
            domain: "kith.example.org", keyAuthorization: keyAuthorization, key: key, now: Int64(time(nil)))
        let facts = try #require(CertificateFacts.chain(pem: pem).first)
        #expect(facts.dnsNames == ["kith.example.org"])
        let identifier = try #require(facts.acmeIdentifier)
        #expect(identifier.critical)
        #expect(identifier.value == [0x04, 0x20] + SHA256.hash(Array(keyAuthorization.utf8)))
        #expect(Certificates.keyMatches(chainPEM: pem, keyPEM: try key.privateKeyPEM()))
        #expect(!Certificates.keyMatches(chainPEM: pem, keyPEM: try P256Key.generate().privateKeyPEM()))
        #expect(facts.notAfter > Int64(time(nil)) && facts.notBefore < Int64(time(nil)))
    }

    /// A stored key reads back as the same key; other PEM is refused.
    @Test func privateKeyPEMRoundTrips() throws {
        let key = try P256Key.generate()
        let pem = try key.privateKeyPEM()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try P256Key(privateKeyPEM: pem).publicKey == key.publicKey)
        #expect(throws: (any Error).self) { try P256Key(privateKeyPEM: Array("not a key".utf8)) }
    }
}
