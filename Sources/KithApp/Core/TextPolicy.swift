import Foundation

/// What Kith accepts as typed text, in one place, so a name behaves the same
/// in every form and a letter keeps what its writer meant.
///
/// Two kinds of text:
/// - a **name** (display names, occasion, celebrant and host names, tally and
///   game names, challenge titles, one-line reasons) is shown inline on other
///   people's pages, so it is cleaned to one tidy line and anything invisible
///   that could disguise it is refused;
/// - **long text** (letters, descriptions, dares, proofs, reports) keeps its
///   lines, tabs and the marks that right-to-left writing needs, and refuses
///   only what can make text read differently from how it looks.
///
/// Lengths are counted in Characters (what a reader sees as one letter or one
/// emoji), because that is what "60 characters" means to the person typing.
/// The schema's CHECKs count code points, so they allow `scalarsPerCharacter`
/// code points per Character (migration 0010), and the policy refuses text
/// heavier than that as too long: a Character can stack marks without end.
enum TextPolicy {
    /// Room for the heaviest everyday Character: a family emoji with a skin
    /// tone on each person is 11 code points; flags with tags are 7.
    static let scalarsPerCharacter = 12

    enum Problem: Equatable, Sendable {
        case empty
        case tooLong(max: Int)
        /// A bidi override, embedding or (in a name) isolate or mark: the
        /// text would read in a different order from how it was typed.
        case reordering
        /// Another control or format character nobody can see.
        case invisible
        case unreadable
    }

    // MARK: Names

    /// A name cleaned as it will be stored: trimmed (NBSP and ideographic
    /// space included), inner runs of whitespace made one space, NFC.
    static func cleanName(_ raw: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in raw {
            if character.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" "); pendingSpace = false }
            out.append(character)
        }
        return out.precomposedStringWithCanonicalMapping
    }

    /// The cleaned name and what is wrong with it, if anything.
    static func name(_ raw: String, max: Int) -> (value: String, problem: Problem?) {
        let value = cleanName(raw)
        if isBlank(value) { return (value, .empty) }
        if value.count > max || value.unicodeScalars.count > max * scalarsPerCharacter { return (value, .tooLong(max: max)) }
        if value.unicodeScalars.contains(where: reordersInName) { return (value, .reordering) }
        if value.unicodeScalars.contains(where: { isControlOrFormat($0) && !joinsInName($0) }) { return (value, .invisible) }
        return (value, nil)
    }

    // MARK: Long text

    /// Long text as it will be stored: CRLF and lone CR made LF, surrounding
    /// whitespace trimmed; everything else as typed.
    static func cleanText(_ raw: String) -> String { raw.replacingCRLF().trimmingWhitespace() }

    /// The cleaned text and what is wrong with it; empty text is not a
    /// problem here, since many long fields are optional.
    static func text(_ raw: String, max: Int) -> (value: String, problem: Problem?) {
        let value = cleanText(raw)
        if value.isEmpty { return (value, nil) }
        if value.count > max || value.unicodeScalars.count > max * scalarsPerCharacter { return (value, .tooLong(max: max)) }
        if value.unicodeScalars.contains(where: isOverrideOrEmbedding) { return (value, .reordering) }
        if value.unicodeScalars.contains(where: { isControlOrFormat($0) && !allowedInText($0) }) { return (value, .invisible) }
        return (value, nil)
    }

    // MARK: Characters

    /// Nothing a reader could see: only whitespace and default-ignorable
    /// characters (zero-width space, joiners, word joiner, soft hyphen,
    /// variation selectors, bidi controls…).
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint }
    }

    static func isControlOrFormat(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .control || category == .format
    }

    /// U+202A–U+202E: they reorder everything after them until a pop that
    /// may never come, so they are refused everywhere.
    static func isOverrideOrEmbedding(_ scalar: Unicode.Scalar) -> Bool { (0x202A...0x202E).contains(scalar.value) }

    /// In a name shown inline, any bidi control (overrides, embeddings,
    /// isolates, marks) can make it read as something else.
    static func reordersInName(_ scalar: Unicode.Scalar) -> Bool {
        isOverrideOrEmbedding(scalar) || (0x2066...0x2069).contains(scalar.value)
            || scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
    }

    /// ZWJ builds emoji sequences, ZWNJ is spelling in Persian and Indic
    /// scripts, and tag characters spell subdivision flags (🏴 England).
    static func joinsInName(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200C || scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value)
    }

    /// Besides what a name allows: line breaks and tabs, the direction marks
    /// and isolates that mixed right-to-left writing needs, and soft hyphens.
    static func allowedInText(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09, 0x00AD, 0x061C, 0x200E, 0x200F, 0x2066...0x2069: true
        default: joinsInName(scalar)
        }
    }
}

/// Every message a form shows about typed text, phrased once. `label` names
/// the field as it reads mid-sentence ("the tally's name", "your letter").
enum FormMessages {
    static let unreadable = "Some of that couldn't be read as text. Please type it again."

    static func enter(_ label: String) -> String { "Enter \(label)." }

    static func tooLong(_ label: String, max: Int) -> String { "Keep \(label) to \(max) characters or fewer." }

    static func reordering(_ label: String) -> String {
        "\(capitalised(label)) has an invisible character that changes how text reads; please type it again."
    }

    static func invisible(_ label: String) -> String { "\(capitalised(label)) has an invisible character in it; please type it again." }

    static func message(for problem: TextPolicy.Problem, label: String) -> String {
        switch problem {
        case .empty: enter(label)
        case .tooLong(let max): tooLong(label, max: max)
        case .reordering: reordering(label)
        case .invisible: invisible(label)
        case .unreadable: unreadable
        }
    }

    static func capitalised(_ label: String) -> String { label.prefix(1).uppercased() + label.dropFirst() }
}
