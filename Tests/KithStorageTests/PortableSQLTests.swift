import Foundation
import Testing

/// The stores' SQL is one text for SQLite and PostgreSQL. These are the
/// SQLite-only spellings that crept in before, each with what runs on both;
/// the test reads the app's sources, so it guards every store without a
/// PostgreSQL server at hand.
@Suite("Store SQL runs on SQLite and PostgreSQL alike")
struct PortableSQLTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/KithApp")

    static let rules: [(pattern: String, instead: String)] = [
        (#"\bINSERT\s+OR\s+(IGNORE|REPLACE)\b|\bREPLACE\s+INTO\b"#, "ON CONFLICT … DO NOTHING / DO UPDATE"),
        (#"\blastInsertRowID\b|last_insert_rowid\s*\("#, "INSERT … RETURNING id (Transaction.insertReturningID)"),
        (#"\bCOLLATE\s+NOCASE\b"#, "lower(column)"),
        (#"\bIFNULL\s*\("#, "coalesce()"),
        (#"\b(strftime|datetime|julianday|unixepoch)\s*\("#, "times as integers computed in Swift"),
        (#"\bLIMIT\s+-1\b|\blimit:\s*-1\b"#, "a LIMIT of Int.max"),
        (#"\bIS\s+NOT\s+\\\("#, "IS DISTINCT FROM"),
        (#"\bPRAGMA\b"#, "nothing: pragmas are the SQLite store's own business"),
    ]

    /// Every Swift line of the app that matches a rule, as `file:line: text`.
    static func offences(in directory: URL) throws -> [String] {
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files.sorted() {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                for rule in rules where code.range(of: rule.pattern, options: [.regularExpression, .caseInsensitive]) != nil {
                    found.append("\(file):\(number + 1): \(code) — use \(rule.instead)")
                }
            }
        }
        return found
    }

    @Test("no store statement uses a construct only SQLite understands")
    func noSQLiteOnlySQL() throws {
        let found = try Self.offences(in: Self.sources)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("each rule catches the spelling it names")
    func rulesCatch() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kith-portable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let samples = [
            #"try tx.execute("INSERT OR IGNORE INTO t (a) VALUES (\(a))")"#,
            "let id = tx.lastInsertRowID",
            "ORDER BY u.display_name COLLATE NOCASE",
            "SELECT ifnull(a, 0) FROM t",
            "WHERE at > strftime('%s', 'now')",
            "try spots(db, gameID: gameID, filter: \"\", limit: -1)",
            #"DELETE FROM sessions WHERE id IS NOT \(keep)"#,
            "try tx.execute(\"PRAGMA foreign_keys = ON\")",
            "// a comment may say INSERT OR IGNORE",
        ]
        try samples.joined(separator: "\n").write(to: directory.appendingPathComponent("Sample.swift"), atomically: true, encoding: .utf8)
        let found = try Self.offences(in: directory)
        #expect(found.count == samples.count - 1, "\(found.joined(separator: "\n"))")
    }
}
