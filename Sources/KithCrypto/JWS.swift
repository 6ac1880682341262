/// RFC 7517 JSON Web Keys as ACME needs them: the account key's public half
/// in a request header, and its RFC 7638 thumbprint in key authorisations.
public enum JWK {
    /// The members RFC 7638 §3.2 requires for an EC key, which are all a P-256 public key has.
    public static func members(of key: P256Key) -> [String: String] {
        [
            "crv": "P-256", "kty": "EC",
            "x": Base64URL.encode(key.publicKey[1..<33]), "y": Base64URL.encode(key.publicKey[33..<65]),
        ]
    }

    /// Members sorted by name, no whitespace: the one spelling both sides
    /// hash, so the thumbprint names the key, not its formatting.
    public static func canonicalJSON(_ members: [String: String]) -> String {
        let sorted = members.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        return "{" + sorted.map { JSONString.quoted($0.key) + ":" + JSONString.quoted($0.value) }.joined(separator: ",") + "}"
    }

    /// SHA-256 of the canonical JSON of a key's required members (RFC 7638 §3).
    public static func thumbprint(requiredMembers: [String: String]) -> [UInt8] {
        SHA256.hash(Array(canonicalJSON(requiredMembers).utf8))
    }

    /// The thumbprint base64url-encoded, as it appears in a key authorisation.
    public static func thumbprint(of key: P256Key) -> String {
        Base64URL.encode(thumbprint(requiredMembers: members(of: key)))
    }
}

/// RFC 7515 signatures in the flattened JSON form ACME requests use
/// (RFC 8555 §6.2), always ES256 with the account's P-256 key.
public enum JWS {
    /// A signed request body. Without `keyID` the header carries the public
    /// key itself (`jwk`), which only newAccount and revocation by
    /// certificate key use; after that the account URL (`kid`) names it.
    /// A nil `payload` is the empty payload of a POST-as-GET.
    public static func sign(payload: [UInt8]?, url: String, nonce: String, keyID: String?, key: P256Key) throws -> [UInt8] {
        let identity = keyID.map { "\"kid\":" + JSONString.quoted($0) } ?? "\"jwk\":" + JWK.canonicalJSON(JWK.members(of: key))
        let header = "{\"alg\":\"ES256\",\(identity),\"nonce\":\(JSONString.quoted(nonce)),\"url\":\(JSONString.quoted(url))}"
        let protected = Base64URL.encode(Array(header.utf8))
        let encodedPayload = payload.map { Base64URL.encode($0) } ?? ""
        let signature = try ES256.sign(Array((protected + "." + encodedPayload).utf8), key: key)
        let body = "{\"protected\":\"\(protected)\",\"payload\":\"\(encodedPayload)\",\"signature\":\"\(Base64URL.encode(signature))\"}"
        return Array(body.utf8)
    }
}
