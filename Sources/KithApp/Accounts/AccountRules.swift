import KithHTTP

/// What counts as a valid name, username and password. Each check returns
/// the message to show next to the field, or nil when the value is fine.
enum AccountRules {
    static let passwordLength = 8...128
    static let usernameLength = 3...30
    static let displayNameLength = 1...60

    static let unreadable = FormMessages.unreadable

    /// Adds the "couldn't be read" message to each of these fields that
    /// arrived as bytes that are not text, over whatever else was said about it.
    static func flagUnreadable(_ form: FormData, fields: [String], into errors: inout [String: String]) {
        for name in fields where form.unreadable.contains(name) { errors[name] = unreadable }
    }

    /// A display name is shown to friends on every page, so it follows the
    /// name policy every form uses. On a problem the value is what was typed,
    /// so the form shows it again as it was.
    static func displayName(_ raw: String?) -> (value: String, error: String?) {
        let raw = raw ?? ""
        let (value, problem) = TextPolicy.name(raw, max: displayNameLength.upperBound)
        guard let problem else { return (value, nil) }
        return (raw, FormMessages.message(for: problem, label: "your name"))
    }

    static func username(_ raw: String?) -> (value: String, error: String?) {
        let value = (raw ?? "").trimmingWhitespace()
        if value.isEmpty { return (value, "Choose a username.") }
        if !usernameLength.contains(value.utf8.count) {
            return (value, "A username is \(usernameLength.lowerBound) to \(usernameLength.upperBound) characters long.")
        }
        let allowed = value.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2E
        }
        if !allowed { return (value, "Use only letters, digits, underscores and dots.") }
        return (value, nil)
    }

    /// The form usernames are compared in: `Dad_Ross` and `dad_ross` are one name.
    static func usernameKey(_ username: String) -> String { username.lowercased() }

    /// Passwords are taken exactly as typed: no trimming, no normalising.
    static func password(_ raw: String?) -> String? {
        let count = (raw ?? "").count
        if count == 0 { return "Choose a password." }
        if count < passwordLength.lowerBound { return "Use at least \(passwordLength.lowerBound) characters." }
        if count > passwordLength.upperBound { return "Use at most \(passwordLength.upperBound) characters." }
        return nil
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
