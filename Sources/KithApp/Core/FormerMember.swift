import KithStorage

/// How a sentence names someone whose account is gone: "a former member",
/// capitalised when it starts the sentence. Every feature that shows who did
/// something (inbox entries, timelines, feeds, "updated by" lines, reports)
/// names a deleted person through here, so they read alike.
///
/// Deletion clears or removes the links to a person (`ON DELETE SET NULL`,
/// purge hooks), so most places know the person is gone from a NULL and call
/// `name(_:)`. Inbox entries are the exception: they are delivered as text,
/// and text cannot follow a deletion. So delivery stores each person's name as
/// a marker (`marked`) holding their id and the name as it was, and the inbox
/// resolves markers when it is read (`resolve`): a person still here keeps the
/// name the entry was written with, a deleted one becomes "a former member".
/// Push messages already sent cannot change.
public enum FormerMember {
    public static let phrase = "a former member"

    /// `name`, or "a former member" (capitalised at a sentence's start) for someone gone.
    public static func name(_ name: String?, startsSentence: Bool = false) -> String {
        if let name { return name }
        return startsSentence ? capitalised : phrase
    }

    public static let capitalised = "A former member"

    // MARK: Names in stored text

    private static let open: Unicode.Scalar = "\u{E000}"
    private static let separator: Unicode.Scalar = "\u{E001}"
    private static let close: Unicode.Scalar = "\u{E002}"

    /// `name`, marked as person `userID`'s for `resolve`.
    static func marked(userID: Int64, name: String) -> String {
        var cleaned = String.UnicodeScalarView()
        cleaned.append(contentsOf: name.unicodeScalars.filter { $0 != open && $0 != separator && $0 != close })
        var out = String.UnicodeScalarView()
        out.append(open)
        out.append(contentsOf: String(userID).unicodeScalars)
        out.append(separator)
        out.append(contentsOf: cleaned)
        out.append(close)
        return String(out)
    }

    /// The people `text` marks.
    static func markedIDs(in text: String) -> Set<Int64> {
        Set(markers(in: text).map(\.id))
    }

    /// `text` with each marked name written out: the name when `exists` says
    /// the person is still here, otherwise "a former member".
    static func resolve(_ text: String, exists: (Int64) -> Bool) -> String {
        guard text.unicodeScalars.contains(open) else { return text }
        var out = String.UnicodeScalarView()
        var rest = Substring(text).unicodeScalars[...]
        for marker in markers(in: text) {
            out.append(contentsOf: rest[rest.startIndex..<marker.range.lowerBound])
            let start = isSentenceStart(out)
            out.append(contentsOf: (exists(marker.id) ? marker.name : (start ? capitalised : phrase)).unicodeScalars)
            rest = rest[marker.range.upperBound...]
        }
        out.append(contentsOf: rest)
        return String(out)
    }

    /// `text` resolved against the users table.
    static func resolve(_ text: String, in db: some Queryable) throws -> String {
        let ids = markedIDs(in: text)
        guard !ids.isEmpty else { return text }
        let present = Set(try db.query("SELECT id FROM users WHERE id IN (\(list: ids.sorted()))").map { try $0.get("id", as: Int64.self) })
        return resolve(text, exists: present.contains)
    }

    private static func isSentenceStart(_ before: String.UnicodeScalarView) -> Bool {
        let trimmed = before.reversed().drop { $0 == " " }
        guard let last = trimmed.first else { return true }
        return last == "." || last == "!" || last == "?"
    }

    private static func markers(in text: String) -> [(range: Range<String.UnicodeScalarView.Index>, id: Int64, name: String)] {
        let scalars = text.unicodeScalars
        var found: [(range: Range<String.UnicodeScalarView.Index>, id: Int64, name: String)] = []
        var index = scalars.startIndex
        while let start = scalars[index...].firstIndex(of: open) {
            guard let middle = scalars[start...].firstIndex(of: separator), let end = scalars[middle...].firstIndex(of: close),
                let id = Int64(String(scalars[scalars.index(after: start)..<middle]))
            else { break }
            found.append((start..<scalars.index(after: end), id, String(scalars[scalars.index(after: middle)..<end])))
            index = scalars.index(after: end)
        }
        return found
    }
}
