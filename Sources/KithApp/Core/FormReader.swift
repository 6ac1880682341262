import KithHTTP
import KithTemplates

/// Reads a submitted form field by field, keeping what was typed and a
/// message next to each field that is wrong, so the form can come back
/// whole. Lengths count Unicode scalars, as SQLite's `length()` does in the
/// schema's CHECKs: the two limits are the same limit.
struct FormReader {
    let form: FormData
    private(set) var values: [String: String] = [:]
    private(set) var errors: [String: String] = [:]

    init(_ form: FormData) { self.form = form }

    var state: FormState { FormState(values: values, errors: errors) }
    var isValid: Bool { errors.isEmpty }

    mutating func fail(_ name: String, _ message: String) { errors[name] = errors[name] ?? message }

    /// One printable line, trimmed. Empty is nil (or an error when `required` says what to ask).
    mutating func line(_ name: String, label: String, max: Int, required: String? = nil) -> String? {
        let value = (form[name] ?? "").trimmingWhitespace()
        values[name] = value
        if form.unreadable.contains(name) { fail(name, AccountRules.unreadable); return nil }
        if value.isEmpty {
            if let required { fail(name, required) }
            return nil
        }
        if value.unicodeScalars.count > max { fail(name, "Keep \(label) to \(max) characters or fewer."); return nil }
        if value.unicodeScalars.contains(where: Self.isInvisible) {
            fail(name, "\(label.prefix(1).uppercased() + label.dropFirst()) has invisible characters in it; please type it again.")
            return nil
        }
        return value
    }

    /// Several lines of text (Markdown): line breaks and tabs are fine,
    /// other control characters are not. Trailing whitespace is trimmed.
    mutating func text(_ name: String, label: String, max: Int, required: String? = nil) -> String {
        let value = (form[name] ?? "").replacingCRLF().trimmingWhitespace()
        values[name] = value
        if form.unreadable.contains(name) { fail(name, AccountRules.unreadable); return "" }
        if value.isEmpty, let required { fail(name, required); return "" }
        if value.unicodeScalars.count > max { fail(name, "Keep \(label) to \(max) characters or fewer."); return value }
        if value.unicodeScalars.contains(where: { $0 != "\n" && $0 != "\t" && Self.isInvisible($0) }) {
            fail(name, "\(label.prefix(1).uppercased() + label.dropFirst()) has invisible characters in it; please type it again.")
        }
        return value
    }

    /// A whole number in `range`.
    mutating func integer(_ name: String, label: String, range: ClosedRange<Int>) -> Int? {
        let raw = (form[name] ?? "").trimmingWhitespace()
        values[name] = raw
        guard !raw.isEmpty else { fail(name, "Enter \(label)."); return nil }
        guard raw.utf8.count <= 12, let number = Int(raw) else { fail(name, "Enter \(label) as a whole number, like 20."); return nil }
        guard range.contains(number) else {
            fail(name, "\(label.prefix(1).uppercased() + label.dropFirst()) must be between \(range.lowerBound) and \(range.upperBound).")
            return nil
        }
        return number
    }

    /// One of an enum's raw values.
    mutating func choice<E: RawRepresentable>(_ name: String, _ type: E.Type, message: String) -> E? where E.RawValue == String {
        let raw = form[name] ?? ""
        values[name] = raw
        guard let value = E(rawValue: raw) else { fail(name, message); return nil }
        return value
    }

    /// A calendar date, YYYY-MM-DD, as `<input type=date>` sends it.
    mutating func date(_ name: String) -> String? {
        let raw = (form[name] ?? "").trimmingWhitespace()
        values[name] = raw
        guard !raw.isEmpty else { fail(name, "Choose the date."); return nil }
        guard Self.isCalendarDate(raw) else { fail(name, "Enter the date as year-month-day, like 2026-06-01."); return nil }
        return raw
    }

    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .control || (category == .format && scalar != "\u{200D}")
    }

    static func isCalendarDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1900...2200).contains(year), (1...12).contains(month)
        else { return false }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }
}

extension String {
    func replacingCRLF() -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(unicodeScalars.count)
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out.unicodeScalars.append("\n")
                previousCR = true
                continue
            }
            if scalar == "\n" && previousCR { previousCR = false; continue }
            previousCR = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
