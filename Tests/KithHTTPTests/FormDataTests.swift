import Testing

@testable import KithHTTP

@Suite("Percent-decoding")
struct PercentDecodingTests {
    @Test("A path segment decodes escapes and keeps plus signs")
    func pathSegment() throws {
        #expect(try PercentDecoding.decodePathSegment("a%20b+c") == "a b+c")
        #expect(try PercentDecoding.decodePathSegment("caf%C3%A9") == "café")
        #expect(try PercentDecoding.decodePathSegment("caf%c3%a9") == "café")
        #expect(try PercentDecoding.decodePathSegment("a%2Fb") == "a/b")
        #expect(try PercentDecoding.decodePathSegment("") == "")
        #expect(try PercentDecoding.decodePathSegment("plain") == "plain")
    }

    @Test("A form component turns plus into space but not an escaped plus")
    func formComponent() throws {
        #expect(try PercentDecoding.decodeFormComponent("a+b%2Bc") == "a b+c")
        #expect(try PercentDecoding.decodeFormComponent("+++") == "   ")
        #expect(try PercentDecoding.decodeFormComponent(Array("x+y".utf8)) == "x y")
    }

    @Test("Malformed escapes are rejected with their offset")
    func badEscapes() {
        #expect(throws: PercentDecodingError.invalidEscape(offset: 0)) { try PercentDecoding.decodePathSegment("%zz") }
        #expect(throws: PercentDecodingError.invalidEscape(offset: 1)) { try PercentDecoding.decodePathSegment("a%4") }
        #expect(throws: PercentDecodingError.invalidEscape(offset: 3)) { try PercentDecoding.decodeFormComponent("100%") }
        #expect(throws: PercentDecodingError.invalidEscape(offset: 0)) { try PercentDecoding.decodeFormComponent("%4g") }
        #expect(throws: PercentDecodingError.invalidEscape(offset: 0)) { try PercentDecoding.decodeFormComponent("%+1") }
    }

    @Test("Bytes that are not UTF-8 are rejected, never replaced")
    func invalidUTF8() {
        for input in ["%FF", "%C3", "%C3%28", "%C0%AF", "%ED%A0%80", "%F4%90%80%80", "a%80b"] {
            #expect(throws: PercentDecodingError.invalidUTF8) { try PercentDecoding.decodeFormComponent(input) }
        }
        #expect(throws: PercentDecodingError.invalidUTF8) {
            try PercentDecoding.decodePathSegment([0x61, 0xFF] as [UInt8])
        }
    }

    @Test("Control characters, NUL included, decode as they are")
    func controlCharacters() throws {
        #expect(try PercentDecoding.decodeFormComponent("a%00b") == "a\u{0}b")
        #expect(try PercentDecoding.decodeFormComponent("line%0D%0Anext%09tab") == "line\r\nnext\ttab")
    }

    @Test("Four-byte UTF-8 sequences decode")
    func emoji() throws {
        #expect(try PercentDecoding.decodeFormComponent("%F0%9F%98%80") == "😀")
    }
}

@Suite("URL-encoded forms")
struct URLEncodedFormTests {
    private func pairs(_ form: FormData) -> [String] {
        form.fields.map { "\($0.name)=\($0.value)" }
    }

    @Test("Fields keep their order and repeated names keep every value")
    func repeatedKeys() throws {
        let form = try FormData.parseURLEncoded("a=1&b=2&a=3")
        #expect(pairs(form) == ["a=1", "b=2", "a=3"])
        #expect(form["a"] == "1")
        #expect(form.values("a") == ["1", "3"])
        #expect(form.values("missing") == [])
        #expect(form["missing"] == nil)
        #expect(form.names == ["a", "b"])
    }

    @Test("Empty pairs are skipped and a name without = has an empty value")
    func emptyPairs() throws {
        #expect(pairs(try FormData.parseURLEncoded("a&&b=")) == ["a=", "b="])
        #expect(pairs(try FormData.parseURLEncoded("&&&")) == [])
        #expect(pairs(try FormData.parseURLEncoded("")) == [])
        #expect(try FormData.parseURLEncoded("").isEmpty)
        #expect(pairs(try FormData.parseURLEncoded("&x=1&")) == ["x=1"])
    }

    @Test("An empty name is kept, as browsers' URLSearchParams does")
    func emptyKeys() throws {
        let form = try FormData.parseURLEncoded("=value&=")
        #expect(pairs(form) == ["=value", "="])
        #expect(form[""] == "value")
    }

    @Test("Only the first = separates name from value")
    func equalsInValue() throws {
        #expect(pairs(try FormData.parseURLEncoded("a=b=c")) == ["a=b=c"])
        #expect(try FormData.parseURLEncoded("expr=1%2B1%3D2")["expr"] == "1+1=2")
    }

    @Test("Names and values are percent-decoded with plus as space")
    func decoding() throws {
        let form = try FormData.parseURLEncoded("q=caf%C3%A9+au+lait&full+name=Ada+L")
        #expect(form["q"] == "café au lait")
        #expect(form["full name"] == "Ada L")
    }

    @Test("Semicolons are not separators")
    func semicolons() throws {
        #expect(pairs(try FormData.parseURLEncoded("a=1;b=2")) == ["a=1;b=2"])
    }

    @Test("Every input form gives the same result")
    func inputForms() throws {
        let text = "x=1&y=%E2%9C%93"
        let bytes = Array(text.utf8)
        let fromBytes = try FormData.parseURLEncoded(bytes)
        let fromRaw = try bytes.withUnsafeBytes { try FormData.parseURLEncoded($0) }
        let fromSubstring = try FormData.parseURLEncoded(text.dropFirst(0))
        let fromSequence = try FormData.parseURLEncoded(bytes.lazy.map { $0 })
        for form in [fromBytes, fromRaw, fromSubstring, fromSequence] {
            #expect(pairs(form) == ["x=1", "y=✓"])
        }
    }

    @Test("A value that is not UTF-8 is kept readable and flagged, so its field can show an error")
    func invalidCharactersInValues() throws {
        let form = try FormData.parseURLEncoded("name=Zo%FF&ok=fine")
        #expect(form["name"] == "Zo\u{FFFD}")
        #expect(form.unreadable == ["name"])
        #expect(form["ok"] == "fine")
    }

    @Test("A name that is not UTF-8 is a 400: names are ours, not typed")
    func invalidCharactersInNames() {
        let inName = #expect(throws: FormError.self) { try FormData.parseURLEncoded("%C3=x") }
        #expect(inName?.status == .badRequest)
        #expect(inName?.message == "The form contains invalid characters.")
    }

    @Test("A bad escape in a value is flagged and kept as typed; in a name it is a 400")
    func badEscape() throws {
        for (input, shown) in [("a=%zz", "%zz"), ("a=%4", "%4"), ("a=100%", "100%")] {
            let form = try FormData.parseURLEncoded(input)
            #expect(form["a"] == shown)
            #expect(form.unreadable == ["a"])
        }
        let error = #expect(throws: FormError.self) { try FormData.parseURLEncoded("%=1") }
        #expect(error?.status == .badRequest)
    }

    @Test("More fields than the limit is a 413; exactly the limit is fine")
    func fieldLimit() throws {
        let limits = FormData.Limits(maxFields: 3)
        #expect(try FormData.parseURLEncoded("a=1&b=2&c=3&&", limits: limits).fields.count == 3)
        let error = #expect(throws: FormError.self) {
            try FormData.parseURLEncoded("a=1&b=2&c=3&d=4", limits: limits)
        }
        #expect(error?.status == .contentTooLarge)

        let thousand = (0..<1000).map { "f\($0)=x" }.joined(separator: "&")
        #expect(try FormData.parseURLEncoded(thousand).fields.count == 1000)
        #expect(throws: FormError.self) { try FormData.parseURLEncoded(thousand + "&one=more") }
    }

    @Test("A name longer than the limit is a 413, counted after decoding")
    func nameLimit() throws {
        let limits = FormData.Limits(maxNameBytes: 4)
        #expect(try FormData.parseURLEncoded("%61%62%63%64=1", limits: limits)["abcd"] == "1")
        let error = #expect(throws: FormError.self) { try FormData.parseURLEncoded("abcde=1", limits: limits) }
        #expect(error?.status == .contentTooLarge)
    }

    @Test("Input longer than the byte limit is a 413")
    func byteLimit() {
        let error = #expect(throws: FormError.self) {
            try FormData.parseURLEncoded("a=12345", limits: FormData.Limits(maxBytes: 6))
        }
        #expect(error?.status == .contentTooLarge)
    }
}

@Suite("Form data values")
struct FormDataValueTests {
    @Test("Files are found by field name, in order")
    func files() {
        let a = UploadedFile(fieldName: "doc", filename: "a.txt", contentType: "text/plain", path: "a", size: 1)
        let b = UploadedFile(fieldName: "img", filename: "b.png", contentType: "image/png", path: "b", size: 2)
        let c = UploadedFile(fieldName: "doc", filename: "c.txt", contentType: "text/plain", path: "c", size: 3)
        var form = FormData(fields: [("title", "Hello")], files: [a, b, c])
        form.append("title", "Again")
        #expect(form.files("doc") == [a, c])
        #expect(form.file("img") == b)
        #expect(form.file("none") == nil)
        #expect(form.values("title") == ["Hello", "Again"])
        #expect(!form.isEmpty)
    }
}
