import KithHTTP

/// The `Cookie` request header: each line of the input is one header field.
///
/// Every cookie kept must have a token name and a value free of control
/// characters, several fields must read as their first-wins merge, and the
/// cookies written back as `name=value; …` must read the same again.
enum CookiesHarness: FuzzHarness {
    static let name = "cookies"

    static func run(_ input: UnsafeRawBufferPointer) {
        let lines = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let cookies = Cookies.parse(HTTPHeaders(lines.map { ("Cookie", String($0)) }))

        var merged: [String: String] = [:]
        for line in lines {
            merged.merge(Cookies.parse(String(line))) { first, _ in first }
        }
        require(cookies == merged, "the fields together gave \(cookies), one by one \(merged)")

        for (name, value) in cookies {
            require(SetCookie.isValidName(name), "kept a cookie whose name is not a token: \(name.debugDescription)")
            require(
                !value.utf8.contains { $0 < 0x20 || $0 == 0x7F },
                "kept a control character in \(name)=\(value.debugDescription)")
        }

        // Quotes and edge spaces are stripped when read, so only values
        // without them survive a second reading as they are.
        let plain = cookies.filter { _, value in
            let bytes = Array(value.utf8)
            let quoted = bytes.count >= 2 && bytes.first == UInt8(ascii: "\"") && bytes.last == UInt8(ascii: "\"")
            let padded = [bytes.first, bytes.last].contains { (byte: UInt8?) in byte == 0x20 || byte == 0x09 }
            return !quoted && !padded
        }
        let header = plain.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        let again = Cookies.parse(header)
        require(again == plain, "\(plain) written as \(header.debugDescription) read back as \(again)")
    }
}
