import Glibc

/// An address block such as `10.0.0.0/8`, `127.0.0.1` or `::1/128`.
/// IPv4 addresses also match in their IPv4-mapped IPv6 form
/// (`::ffff:127.0.0.1`), which is how a dual-stack socket reports them.
public struct AddressBlock: Sendable, Hashable, CustomStringConvertible {
    /// 16 bytes; IPv4 blocks are stored mapped.
    private let network: [UInt8]
    private let prefixLength: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.parse(String(parts[0])) else { return nil }
        let isV4 = !parts[0].contains(":")
        var length = 128
        if parts.count == 2 {
            guard let given = Int(parts[1]), given >= 0, given <= (isV4 ? 32 : 128) else { return nil }
            length = isV4 ? given + 96 : given
        }
        prefixLength = length
        network = Self.masked(address, length)
        description = text
    }

    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.parse(address) else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    /// 16 bytes for an IPv4 or IPv6 address in text; nil for anything else.
    static func parse(_ text: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 16)
        if !text.contains(":") {
            var v4 = in_addr()
            guard inet_pton(AF_INET, text, &v4) == 1 else { return nil }
            bytes[10] = 0xFF
            bytes[11] = 0xFF
            withUnsafeBytes(of: &v4) { for i in 0..<4 { bytes[12 + i] = $0[i] } }
            return bytes
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        withUnsafeBytes(of: &v6) { for i in 0..<16 { bytes[i] = $0[i] } }
        return bytes
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        var result = bytes
        for i in 0..<16 {
            let keep = max(0, min(8, length - 8 * i))
            result[i] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        return result
    }
}

/// Who is really asking. Behind a reverse proxy every socket peer is the
/// proxy, so per-address limits would lump every visitor together; the
/// proxy's forwarding headers name the client, but only a proxy we trust
/// may be believed — anyone else could write those headers themselves.
public enum ClientAddress {
    /// The client's address: the socket peer, unless that peer is a trusted
    /// proxy, in which case the nearest untrusted hop its forwarding headers
    /// name. Walking from the right matters: a client can put anything it
    /// likes at the left of `X-Forwarded-For`, but each trusted proxy appends
    /// what it saw.
    public static func resolve(peer: String, headers: HTTPHeaders, trusted: [AddressBlock]) -> String {
        guard !trusted.isEmpty, trusted.contains(where: { $0.contains(peer) }) else { return peer }
        var hops = headers.values("X-Forwarded-For").flatMap { $0.split(separator: ",") }.map {
            String($0.trimmingASCIISpaces())
        }
        if hops.isEmpty {
            hops = headers.values("Forwarded").flatMap { forwardedFor($0) }
        }
        for hop in hops.reversed() {
            guard AddressBlock.parse(hop) != nil else { return peer }  // garbage from a proxy we trust: ignore it all
            if !trusted.contains(where: { $0.contains(hop) }) { return hop }
        }
        return hops.first.flatMap { AddressBlock.parse($0) != nil ? $0 : nil } ?? peer
    }

    /// The `for=` values of an RFC 7239 `Forwarded` header, in order:
    /// quotes, IPv6 brackets and ports removed.
    static func forwardedFor(_ value: String) -> [String] {
        var result: [String] = []
        for element in value.split(separator: ",") {
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingASCIISpaces().lowercased() == "for" else { continue }
                var node = String(parts[1].trimmingASCIISpaces())
                if node.hasPrefix("\"") && node.hasSuffix("\"") && node.count >= 2 { node = String(node.dropFirst().dropLast()) }
                if node.hasPrefix("["), let close = node.firstIndex(of: "]") {
                    node = String(node[node.index(after: node.startIndex)..<close])
                } else if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") {
                    node = String(node[..<colon])
                }
                result.append(node)
            }
        }
        return result
    }
}
