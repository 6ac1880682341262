/// Reading the `Cookie` request header (RFC 6265 §5.4).
public enum Cookies {
    /// The cookies in one `Cookie` header value, by name.
    ///
    /// The first of two cookies with the same name wins: browsers send the
    /// one with the longest path first, which is the most specific. Pairs
    /// that are not `token=value` or whose value holds control characters are
    /// skipped rather than failing the request, because other applications
    /// on the same domain may set cookies that do not follow the RFC.
    public static func parse(_ header: String) -> [String: String] {
        var cookies: [String: String] = [:]
        parse(header, into: &cookies)
        return cookies
    }

    /// The cookies of every `Cookie` field in the headers. HTTP/1.1 clients
    /// send one, but proxies that down-convert from HTTP/2 may send several.
    public static func parse(_ headers: HTTPHeaders) -> [String: String] {
        var cookies: [String: String] = [:]
        for field in headers where HTTPHeaders.equal(field.name, "Cookie") {
            parse(field.value, into: &cookies)
        }
        return cookies
    }

    private static func parse(_ header: String, into cookies: inout [String: String]) {
        let bytes = Array(header.utf8)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ";") { end += 1 }
            defer { start = end + 1 }
            let pair = HTTPParser.CharacterClass.trimmed(bytes[start..<end])
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = HTTPParser.CharacterClass.trimmed(pair[..<equals])
            var value = HTTPParser.CharacterClass.trimmed(pair[(equals + 1)...])
            guard !name.isEmpty, name.allSatisfy(HTTPParser.CharacterClass.isTchar) else { continue }
            if value.count >= 2 && value.first == UInt8(ascii: "\"") && value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            guard !value.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { continue }
            let key = String(decoding: name, as: UTF8.self)
            if cookies[key] == nil { cookies[key] = String(decoding: value, as: UTF8.self) }
        }
    }


}

/// A `Set-Cookie` response header value (RFC 6265 §4.1).
///
/// Names, values and attributes come from the application, never from the
/// client, so invalid ones are programming errors and stop the process
/// (`precondition`). Check untrusted text with `isValidName` and
/// `isValidValue` first, or encode it (base64url is always valid).
public struct SetCookie: Sendable, Equatable, CustomStringConvertible {
    public enum SameSite: String, Sendable {
        case lax = "Lax"
        case strict = "Strict"
        /// Requires `secure`: browsers drop `SameSite=None` cookies without it.
        case none = "None"
    }

    public var name: String
    public var value: String
    public var path: String?
    public var domain: String?
    /// Lifetime in seconds; 0 or less deletes the cookie at once.
    public var maxAge: Int?
    /// Expiry as seconds since the Unix epoch. Browsers prefer `maxAge`
    /// when both are present; `expires` is for very old clients.
    public var expires: Int64?
    public var httpOnly: Bool
    /// Browsers treat `http://localhost` as secure, so the default of `true`
    /// works in development too.
    public var secure: Bool
    public var sameSite: SameSite?

    public init(
        name: String,
        value: String,
        path: String? = "/",
        domain: String? = nil,
        maxAge: Int? = nil,
        expires: Int64? = nil,
        httpOnly: Bool = true,
        secure: Bool = true,
        sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
        validate()
    }

    /// A header that makes the browser delete the cookie. Path and domain must
    /// match the ones it was set with, or the browser keeps it.
    public static func removal(name: String, path: String? = "/", domain: String? = nil) -> SetCookie {
        SetCookie(name: name, value: "", path: path, domain: domain, maxAge: 0, expires: 0)
    }

    /// The text after `Set-Cookie: `.
    public var headerValue: String {
        validate()
        var result = name + "=" + value
        if let path { result += "; Path=" + path }
        if let domain { result += "; Domain=" + domain }
        if let maxAge { result += "; Max-Age=\(max(0, maxAge))" }
        if let expires { result += "; Expires=" + Self.imfFixdate(expires) }
        if secure { result += "; Secure" }
        if httpOnly { result += "; HttpOnly" }
        if let sameSite { result += "; SameSite=" + sameSite.rawValue }
        return result
    }

    public var description: String { headerValue }

    /// Whether the name is an RFC 9110 token.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPParser.CharacterClass.isTchar)
    }

    /// Whether the value is `*cookie-octet`, optionally in double quotes.
    public static func isValidValue(_ value: String) -> Bool {
        var bytes = Array(value.utf8)[...]
        if bytes.count >= 2 && bytes.first == UInt8(ascii: "\"") && bytes.last == UInt8(ascii: "\"") {
            bytes = bytes.dropFirst().dropLast()
        }
        return bytes.allSatisfy { byte in
            switch byte {
            case 0x21, 0x23...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
            default: false
            }
        }
    }

    /// Attribute values may hold any visible character except `;`.
    private static func isValidAttribute(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: ";") }
    }

    private func validate() {
        precondition(Self.isValidName(name), "cookie name is not a token")
        precondition(Self.isValidValue(value), "cookie value contains characters outside cookie-octet")
        precondition(path.map(Self.isValidAttribute) ?? true, "cookie path contains ';' or a control character")
        precondition(domain.map(Self.isValidAttribute) ?? true, "cookie domain contains ';' or a control character")
        precondition(sameSite != SameSite.none || secure, "SameSite=None cookies must be Secure")
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7), computed without a
    /// calendar library.
    static func imfFixdate(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days to a proleptic Gregorian date, counting in 400-year eras from 0000-03-01.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // 1970-01-01 was a Thursday.
        let weekday = Int(((days % 7) + 11) % 7)

        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(weekdays[weekday]), \(pad(day, 2)) \(months[Int(month) - 1]) \(pad(year, 4)) "
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    }
}
