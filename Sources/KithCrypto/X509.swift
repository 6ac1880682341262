import CCrypto
import Glibc

/// Why a certificate, request or key could not be built or read.
public enum X509Error: Error, Equatable, CustomStringConvertible {
    case invalidDomain(String)
    case unreadable(String)
    case library(String)

    public var description: String {
        switch self {
        case .invalidDomain(let domain): "not a domain name a certificate can carry: \(domain)"
        case .unreadable(let what): "cannot read \(what)"
        case .library(let step): "libcrypto failed: \(step)"
        }
    }
}

/// PEM for the keys Kith stores beside its certificates.
extension P256Key {
    /// The private key as PKCS #8 PEM, what TLS servers and `openssl` read.
    public func privateKeyPEM() throws -> [UInt8] {
        guard hasPrivateKey else { throw WebPushCryptoError.invalidKey }
        return try MemoryBIO.written { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) == 1 }
    }

    /// A key read back from `privateKeyPEM()`; anything but a P-256 key is refused.
    public convenience init(privateKeyPEM pem: [UInt8]) throws {
        let pkey = try MemoryBIO.reading(pem) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        guard let pkey else { throw X509Error.unreadable("the private key") }
        var group = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pkey, "group", &group, group.count, &length) == 1,
            String(decoding: group.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            EVP_PKEY_free(pkey)
            throw X509Error.unreadable("the private key: not a P-256 key")
        }
        try self.init(pkey: pkey, hasPrivateKey: true)
    }
}

/// Building the two certificates-to-be ACME needs: the request sent to
/// finalize an order (RFC 8555 §7.4), and the self-signed certificate
/// answering a tls-alpn-01 challenge (RFC 8737 §3).
public enum CertificateBuilder {
    /// The id-pe-acmeIdentifier extension (RFC 8737 §6.1).
    public static let acmeIdentifierOID = "1.3.6.1.5.5.7.1.31"

    /// A DER PKCS #10 request for `domains`, the first also the subject's
    /// common name, signed by `key`, whose public half the certificate gets.
    public static func certificateRequest(domains: [String], key: P256Key) throws -> [UInt8] {
        guard let first = domains.first else { throw X509Error.invalidDomain("") }
        for domain in domains { try checkDomain(domain) }
        guard let request = X509_REQ_new() else { throw X509Error.library("X509_REQ_new") }
        defer { X509_REQ_free(request) }
        guard X509_REQ_set_version(request, 0) == 1, let name = X509_REQ_get_subject_name(request),
            X509_NAME_add_entry_by_txt(name, "CN", asciiString, first, -1, -1, 0) == 1,
            X509_REQ_set_pubkey(request, key.pkey) == 1
        else { throw X509Error.library("filling the request") }
        let alternativeNames = try subjectAlternativeNames(domains)
        defer { X509_EXTENSION_free(alternativeNames) }
        guard let extensions = OPENSSL_sk_new_null() else { throw X509Error.library("OPENSSL_sk_new_null") }
        defer { OPENSSL_sk_free(extensions) }
        guard OPENSSL_sk_push(extensions, UnsafeRawPointer(alternativeNames)) > 0,
            X509_REQ_add_extensions(request, extensions) == 1,
            X509_REQ_sign(request, key.pkey, EVP_sha256()) > 0
        else { throw X509Error.library("signing the request") }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_REQ(request, &output)
        guard length > 0, let output else { throw X509Error.library("encoding the request") }
        defer { CRYPTO_free(output, nil, 0) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// The tls-alpn-01 answer: self-signed for `domain` alone, with the
    /// critical acmeIdentifier extension holding SHA-256 of the key
    /// authorisation as a DER OCTET STRING. Valid a week: the validation
    /// takes seconds, and the server removes it afterwards.
    public static func challengeCertificatePEM(domain: String, keyAuthorization: String, key: P256Key, now: Int64) throws -> [UInt8] {
        try checkDomain(domain)
        guard let certificate = X509_new() else { throw X509Error.library("X509_new") }
        defer { X509_free(certificate) }
        let serial = SecureRandom.bytes(16)
        let serialNumber = serial.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        defer { BN_free(serialNumber) }
        var start = time_t(now - 3600)
        var issued = time_t(now)
        guard X509_set_version(certificate, 2) == 1,
            BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(certificate)) != nil,
            X509_time_adj_ex(X509_getm_notBefore(certificate), 0, 0, &start) != nil,
            X509_time_adj_ex(X509_getm_notAfter(certificate), 7, 0, &issued) != nil,
            let name = X509_get_subject_name(certificate),
            X509_NAME_add_entry_by_txt(name, "CN", asciiString, domain, -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, name) == 1,
            X509_set_pubkey(certificate, key.pkey) == 1
        else { throw X509Error.library("filling the challenge certificate") }
        let alternativeNames = try subjectAlternativeNames([domain])
        defer { X509_EXTENSION_free(alternativeNames) }
        guard let object = OBJ_txt2obj(acmeIdentifierOID, 1) else { throw X509Error.library("OBJ_txt2obj") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw X509Error.library("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        // The extension's value is itself DER: an OCTET STRING of the 32-byte digest.
        let inner: [UInt8] = [0x04, 0x20] + SHA256.hash(Array(keyAuthorization.utf8))
        guard ASN1_OCTET_STRING_set(value, inner, Int32(inner.count)) == 1,
            let identifier = X509_EXTENSION_create_by_OBJ(nil, object, 1, value)
        else { throw X509Error.library("building acmeIdentifier") }
        defer { X509_EXTENSION_free(identifier) }
        guard X509_add_ext(certificate, alternativeNames, -1) == 1, X509_add_ext(certificate, identifier, -1) == 1,
            X509_sign(certificate, key.pkey, EVP_sha256()) > 0
        else { throw X509Error.library("signing the challenge certificate") }
        return try MemoryBIO.written { PEM_write_bio_X509($0, certificate) == 1 }
    }

    /// `MBSTRING_ASC`, a macro built from another macro, which Swift cannot import.
    private static let asciiString: Int32 = 0x1000 | 1

    /// Letters, digits, hyphens and dots (a leading `*.` for wildcards):
    /// nothing that could change the meaning of an OpenSSL `DNS:` list.
    public static func checkDomain(_ domain: String) throws {
        var name = Substring(domain)
        if name.hasPrefix("*.") { name = name.dropFirst(2) }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard domain.utf8.count <= 253, labels.count >= 1,
            labels.allSatisfy({ label in
                (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
            })
        else { throw X509Error.invalidDomain(domain) }
    }

    private static func subjectAlternativeNames(_ domains: [String]) throws -> OpaquePointer {
        let list = domains.map { "DNS:" + $0 }.joined(separator: ",")
        guard let ext = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, list) else {
            throw X509Error.library("subjectAltName")
        }
        return ext
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

/// What Kith reads back from a certificate: enough to decide renewal, log
/// what was installed, and (in tests) check what an ACME server issued.
public struct CertificateFacts: Sendable, Equatable {
    public var subject: String
    public var issuer: String
    /// Upper-case hexadecimal.
    public var serial: String
    /// Seconds since 1970.
    public var notBefore: Int64
    public var notAfter: Int64
    public var dnsNames: [String]
    /// The acmeIdentifier extension's value and criticality, when present.
    public var acmeIdentifier: (value: [UInt8], critical: Bool)? {
        get { acmeIdentifierValue.map { ($0, acmeIdentifierCritical) } }
        set {
            acmeIdentifierValue = newValue?.value
            acmeIdentifierCritical = newValue?.critical ?? false
        }
    }
    var acmeIdentifierValue: [UInt8]?
    var acmeIdentifierCritical = false

    /// Facts of each certificate in a PEM chain, leaf first; empty when none parses.
    public static func chain(pem: [UInt8]) -> [CertificateFacts] {
        (try? Certificates.withChain(pem) { $0.map(facts) }) ?? []
    }

    static func facts(_ certificate: OpaquePointer) -> CertificateFacts {
        func name(_ name: OpaquePointer?) -> String {
            guard let name, let text = X509_NAME_oneline(name, nil, 0) else { return "" }
            defer { CRYPTO_free(text, nil, 0) }
            return String(cString: text)
        }
        func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
            var parts = tm()
            guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return 0 }
            return Int64(timegm(&parts))
        }
        var serial = ""
        if let number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nil) {
            if let hex = BN_bn2hex(number) {
                serial = String(cString: hex)
                CRYPTO_free(hex, nil, 0)
            }
            BN_free(number)
        }
        var facts = CertificateFacts(
            subject: name(X509_get_subject_name(certificate)), issuer: name(X509_get_issuer_name(certificate)), serial: serial,
            notBefore: seconds(X509_get0_notBefore(certificate)), notAfter: seconds(X509_get0_notAfter(certificate)),
            dnsNames: dnsNames(UnsafeMutableRawPointer(X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil))))
        if let object = OBJ_txt2obj(CertificateBuilder.acmeIdentifierOID, 1) {
            let index = X509_get_ext_by_OBJ(certificate, object, -1)
            ASN1_OBJECT_free(object)
            if index >= 0, let ext = X509_get_ext(certificate, index), let data = X509_EXTENSION_get_data(ext) {
                facts.acmeIdentifierValue = Array(
                    UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))))
                facts.acmeIdentifierCritical = X509_EXTENSION_get_critical(ext) == 1
            }
        }
        return facts
    }

    /// The DNS entries of a decoded GENERAL_NAMES stack, which this frees.
    static func dnsNames(_ stack: UnsafeMutableRawPointer?) -> [String] {
        guard let stack else { return [] }
        let names = OpaquePointer(stack)
        defer { GENERAL_NAMES_free(names) }
        var result: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let entry = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self),
                entry.pointee.type == GEN_DNS, let text = entry.pointee.d.dNSName
            else { continue }
            result.append(String(decoding: UnsafeBufferPointer(start: ASN1_STRING_get0_data(text), count: Int(ASN1_STRING_length(text))), as: UTF8.self))
        }
        return result
    }
}

/// Checks on PEM chains and keys that libcrypto answers.
public enum Certificates {
    /// Whether `keyPEM` is the private key of the chain's first certificate.
    public static func keyMatches(chainPEM: [UInt8], keyPEM: [UInt8]) -> Bool {
        guard let pkey = try? MemoryBIO.reading(keyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else { return false }
        defer { EVP_PKEY_free(pkey) }
        return (try? withChain(chainPEM) { chain in chain.first.map { X509_check_private_key($0, pkey) == 1 } ?? false }) ?? false
    }

    /// Whether the chain's first certificate verifies up to `rootPEM`, the
    /// rest of the chain serving as intermediates, at the current time.
    public static func verifies(chainPEM: [UInt8], rootPEM: [UInt8]) -> Bool {
        (try? withChain(rootPEM) { roots in
            try withChain(chainPEM) { chain in
                guard let leaf = chain.first, let store = X509_STORE_new() else { return false }
                defer { X509_STORE_free(store) }
                for root in roots where X509_STORE_add_cert(store, root) != 1 { return false }
                guard let untrusted = OPENSSL_sk_new_null(), let context = X509_STORE_CTX_new() else { return false }
                defer {
                    OPENSSL_sk_free(untrusted)
                    X509_STORE_CTX_free(context)
                }
                for intermediate in chain.dropFirst() { OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate)) }
                return X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 && X509_verify_cert(context) == 1
            }
        }) ?? false
    }

    /// Facts of a DER PKCS #10 request whose signature verifies under its
    /// own key: the subject and the requested DNS names; nil otherwise.
    public static func requestFacts(der: [UInt8]) -> (subject: String, dnsNames: [String])? {
        var cursor: UnsafePointer<UInt8>?
        return der.withUnsafeBufferPointer { buffer -> (String, [String])? in
            cursor = buffer.baseAddress
            guard let request = d2i_X509_REQ(nil, &cursor, buffer.count) else { return nil }
            defer { X509_REQ_free(request) }
            guard let key = X509_REQ_get0_pubkey(request), X509_REQ_verify(request, key) == 1,
                let name = X509_REQ_get_subject_name(request), let text = X509_NAME_oneline(name, nil, 0)
            else { return nil }
            let subject = String(cString: text)
            CRYPTO_free(text, nil, 0)
            var names: [String] = []
            if let extensions = X509_REQ_get_extensions(request) {
                names = CertificateFacts.dnsNames(X509V3_get_d2i(extensions, NID_subject_alt_name, nil, nil))
                OPENSSL_sk_pop_free(extensions) { X509_EXTENSION_free(OpaquePointer($0)) }
            }
            return (subject, names)
        }
    }

    /// Calls `body` with every certificate of a PEM text, leaf first.
    static func withChain<R>(_ pem: [UInt8], _ body: ([OpaquePointer]) throws -> R) throws -> R {
        var chain: [OpaquePointer] = []
        defer { chain.forEach { X509_free($0) } }
        try MemoryBIO.reading(pem) { bio -> Void in
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { chain.append(certificate) }
            ERR_clear_error()
        }
        guard !chain.isEmpty else { throw X509Error.unreadable("the certificate chain") }
        return try body(chain)
    }
}

/// libcrypto's in-memory BIO, for PEM in and out of byte arrays.
enum MemoryBIO {
    static func written(_ write: (OpaquePointer) -> Bool) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw X509Error.library("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) else { throw X509Error.library("writing PEM") }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = BIO_read(bio, &chunk, Int32(chunk.count)), count > 0 { output += chunk[..<Int(count)] }
        return output
    }

    static func reading<R>(_ bytes: [UInt8], _ read: (OpaquePointer) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { throw X509Error.library("BIO_new_mem_buf") }
            defer { BIO_free(bio) }
            return try read(bio)
        }
    }
}
