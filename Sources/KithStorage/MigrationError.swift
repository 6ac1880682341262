/// Why migrations could not be loaded or applied. Every case names the file
/// involved.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    case unreadableDirectory(path: String, reason: String)
    case unreadableFile(name: String, reason: String)
    /// A `.sql` file whose name is not `NNNN_name.sql`.
    case badFileName(String)
    /// Two files with the same number, e.g. `0002_a.sql` and `2_b.sql`.
    case duplicateVersion(Int, files: [String])
    /// The file's SQL, or its commit, failed; nothing of it was applied.
    case failed(file: String, error: DatabaseError)
    /// The file ran, but `PRAGMA foreign_key_check` then found rows pointing at
    /// missing parents; nothing of it was applied. Each entry reads like
    /// `posts rowid 7 -> users`.
    case foreignKeyViolations(file: String, violations: [String])
    /// An applied migration's file no longer has the text it was applied
    /// with. Shipped migrations are history: a change goes in a new file.
    case changedAfterApplying(file: String)

    public var description: String {
        switch self {
        case .unreadableDirectory(let path, let reason):
            "cannot list the migrations directory \(path): \(reason)"
        case .unreadableFile(let name, let reason):
            "cannot read migration \(name): \(reason)"
        case .badFileName(let name):
            "migration file \(name) is not named NNNN_name.sql (digits, underscore, then letters, digits, _ or -)"
        case .duplicateVersion(let version, let files):
            "migration number \(version) is used by more than one file: \(files.joined(separator: ", "))"
        case .failed(let file, let error):
            "migration \(file) failed and was not applied: \(error)"
        case .changedAfterApplying(let file):
            "migration \(file) was changed after it was applied; restore its text and put the change in a new migration file"
        case .foreignKeyViolations(let file, let violations):
            "migration \(file) was not applied: it leaves rows whose foreign keys point nowhere: \(violations.joined(separator: "; "))"
        }
    }
}
