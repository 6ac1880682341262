import Testing

@testable import KithHTTP

@Suite("Cookie header")
struct CookieParsingTests {
    @Test("Pairs separated by semicolons, with or without spaces")
    func basic() {
        #expect(Cookies.parse("a=1; b=2") == ["a": "1", "b": "2"])
        #expect(Cookies.parse("a=1;b=2") == ["a": "1", "b": "2"])
        #expect(Cookies.parse("  a = 1 ;\tb=2 ; ") == ["a": "1", "b": "2"])
        #expect(Cookies.parse("") == [:])
    }

    @Test("The first cookie of a name wins")
    func firstWins() {
        #expect(Cookies.parse("sid=specific; sid=general") == ["sid": "specific"])
    }

    @Test("Malformed pairs are skipped and the rest kept")
    func malformed() {
        #expect(Cookies.parse("novalue; =x; b=2; a b=3; c=\u{1}; ;;") == ["b": "2"])
    }

    @Test("Surrounding double quotes are removed, inner = kept, empty values allowed")
    func values() {
        #expect(Cookies.parse("a=\"xyz\"; b=c=d; e=; f=\"\"; g=\"") == ["a": "xyz", "b": "c=d", "e": "", "f": "", "g": "\""])
    }

    @Test("Every Cookie field of the request is read")
    func severalFields() {
        let headers = HTTPHeaders([("Cookie", "a=1"), ("Host", "x"), ("cookie", "b=2; a=3")])
        #expect(Cookies.parse(headers) == ["a": "1", "b": "2"])
    }
}

@Suite("Set-Cookie")
struct SetCookieTests {
    @Test("Defaults are path /, Secure, HttpOnly and SameSite=Lax")
    func defaults() {
        #expect(SetCookie(name: "sid", value: "abc").headerValue == "sid=abc; Path=/; Secure; HttpOnly; SameSite=Lax")
    }

    @Test("Every attribute renders in a stable order")
    func allAttributes() {
        let cookie = SetCookie(
            name: "pref", value: "\"dark\"", path: "/app", domain: "example.org", maxAge: 3600,
            expires: 784_111_777, httpOnly: false, secure: true, sameSite: .strict)
        #expect(
            cookie.headerValue
                == "pref=\"dark\"; Path=/app; Domain=example.org; Max-Age=3600; "
                + "Expires=Sun, 06 Nov 1994 08:49:37 GMT; Secure; SameSite=Strict")
    }

    @Test("Attributes left out are not rendered")
    func minimal() {
        let cookie = SetCookie(name: "a", value: "", path: nil, httpOnly: false, secure: false, sameSite: nil)
        #expect(cookie.headerValue == "a=")
        #expect(SetCookie(name: "x", value: "1", sameSite: SetCookie.SameSite.none).description.hasSuffix("SameSite=None"))
    }

    @Test("A removal expires the cookie at once")
    func removal() {
        #expect(
            SetCookie.removal(name: "sid").headerValue
                == "sid=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; HttpOnly; SameSite=Lax")
        var negative = SetCookie(name: "a", value: "b")
        negative.maxAge = -5
        #expect(negative.headerValue.contains("Max-Age=0;"))
    }

    @Test("Names must be tokens and values cookie-octets")
    func validation() {
        #expect(SetCookie.isValidName("session_id"))
        #expect(!SetCookie.isValidName(""))
        #expect(!SetCookie.isValidName("a b"))
        #expect(!SetCookie.isValidName("a=b"))
        #expect(!SetCookie.isValidName("ü"))
        #expect(SetCookie.isValidValue(""))
        #expect(SetCookie.isValidValue("aZ09-_.~!#$%&'()*+/:<=>?@[]^`{|}"))
        #expect(SetCookie.isValidValue("\"quoted\""))
        for bad in ["a b", "a,b", "a;b", "a\\b", "a\"b", "\"", "é", "a\u{7F}", "tab\t"] {
            #expect(!SetCookie.isValidValue(bad), "\(bad)")
        }
    }

    @Test("An invalid value stops the process")
    func invalidValueTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = SetCookie(name: "a", value: "has space")
        }
    }

    @Test("Dates render as IMF-fixdate across eras, leap days and before 1970")
    func dates() {
        #expect(SetCookie.imfFixdate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(SetCookie.imfFixdate(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(SetCookie.imfFixdate(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(SetCookie.imfFixdate(1_709_164_799) == "Wed, 28 Feb 2024 23:59:59 GMT")
        #expect(SetCookie.imfFixdate(1_709_164_800) == "Thu, 29 Feb 2024 00:00:00 GMT")
        #expect(SetCookie.imfFixdate(4_102_444_800) == "Fri, 01 Jan 2100 00:00:00 GMT")
        #expect(SetCookie.imfFixdate(253_402_300_799) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }
}
