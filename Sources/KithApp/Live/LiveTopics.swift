import Synchronization

/// The kinds of topic a page may listen to, each with its access rule.
/// A feature registers its kind once (`occasion`, `game`, `tallies`,
/// `inbox`); a stream asking for a topic whose rule says no is refused whole.
public final class LiveTopics: Sendable {
    /// Decides whether the viewer in `context` may follow `key` of this kind.
    public typealias Rule = @Sendable (_ key: String, _ context: RequestContext) throws -> Bool

    private let rules = Mutex<[String: Rule]>([:])

    public init() {}

    public func register(kind: String, rule: @escaping Rule) {
        precondition(Self.isKind(kind), "a topic kind is lowercase letters: \(kind)")
        rules.withLock {
            precondition($0[kind] == nil, "topic kind registered twice: \(kind)")
            $0[kind] = rule
        }
    }

    /// `kind:key` for a known kind whose rule lets the viewer in.
    func allows(_ topic: String, context: RequestContext) -> Bool {
        guard let colon = topic.firstIndex(of: ":") else { return false }
        let kind = String(topic[..<colon])
        let key = String(topic[topic.index(after: colon)...])
        guard Self.isKey(key), let rule = rules.withLock({ $0[kind] }) else { return false }
        return (try? rule(key, context)) ?? false
    }

    public static func name(_ kind: String, _ key: some CustomStringConvertible) -> String { "\(kind):\(key)" }

    private static func isKind(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A }
    }

    private static func isKey(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D }
    }
}
