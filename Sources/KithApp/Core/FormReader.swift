import KithHTTP
import KithTemplates

/// Reads a submitted form field by field, keeping what was typed and a
/// message next to each field that is wrong, so the form can come back
/// whole. Text goes through `TextPolicy` and its messages through
/// `FormMessages`, so every feature's forms judge and phrase text alike.
struct FormReader {
    let form: FormData
    private(set) var values: [String: String] = [:]
    private(set) var errors: [String: String] = [:]

    init(_ form: FormData) { self.form = form }

    var state: FormState { FormState(values: values, errors: errors) }
    var isValid: Bool { errors.isEmpty }

    mutating func fail(_ name: String, _ message: String) { errors[name] = errors[name] ?? message }

    /// A name or other one-line text, cleaned by `TextPolicy.name`. Empty is
    /// nil, or an error when `required`. `label` reads mid-sentence: "the
    /// tally's name" makes "Enter the tally's name.".
    mutating func line(_ name: String, label: String, max: Int, required: Bool = false) -> String? {
        let raw = form[name] ?? ""
        let (value, problem) = TextPolicy.name(raw, max: max)
        if problem == .empty, !required, !form.unreadable.contains(name) { values[name] = ""; return nil }
        return accept(name, raw: raw, value: value, problem: problem, label: label)
    }

    /// Several lines of text (Markdown), cleaned by `TextPolicy.text`; empty
    /// is "" or, when `required`, an error.
    mutating func text(_ name: String, label: String, max: Int, required: Bool = false) -> String {
        let raw = form[name] ?? ""
        var (value, problem) = TextPolicy.text(raw, max: max)
        if problem == nil, required, value.isEmpty { problem = .empty }
        return accept(name, raw: raw, value: value, problem: problem, label: label) ?? value
    }

    /// Keeps the cleaned value, or the text exactly as typed beside its message
    /// so the person can see and fix what was refused.
    private mutating func accept(_ name: String, raw: String, value: String, problem: TextPolicy.Problem?, label: String) -> String? {
        let problem = form.unreadable.contains(name) ? .unreadable : problem
        guard let problem else { values[name] = value; return value }
        values[name] = raw
        fail(name, FormMessages.message(for: problem, label: label))
        return nil
    }

    /// A whole number in `range`.
    mutating func integer(_ name: String, label: String, range: ClosedRange<Int>) -> Int? {
        let raw = (form[name] ?? "").trimmingWhitespace()
        values[name] = raw
        guard !raw.isEmpty else { fail(name, FormMessages.enter(label)); return nil }
        guard raw.utf8.count <= 12, let number = Int(raw) else { fail(name, "Enter \(label) as a whole number, like 20."); return nil }
        guard range.contains(number) else {
            fail(name, "\(FormMessages.capitalised(label)) must be between \(range.lowerBound) and \(range.upperBound).")
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
