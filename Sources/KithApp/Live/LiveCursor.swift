/// Where a page's view of the live event sequence stands: the hub's boot epoch
/// and the id of the last event published before the page read its data.
/// A page renders it; its stream replays everything after it.
struct LiveCursor: Sendable, Equatable, CustomStringConvertible {
    let epoch: String
    let eventID: UInt64

    init(epoch: String, eventID: UInt64) {
        self.epoch = epoch
        self.eventID = eventID
    }

    /// `EPOCH-ID`; nil when malformed.
    init?(_ text: String) {
        guard let dash = text.lastIndex(of: "-") else { return nil }
        let epoch = text[..<dash]
        guard !epoch.isEmpty, epoch.utf8.allSatisfy({ Self.isHex($0) }),
            let id = UInt64(text[text.index(after: dash)...])
        else { return nil }
        self.epoch = String(epoch)
        eventID = id
    }

    var description: String { "\(epoch)-\(eventID)" }

    private static func isHex(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) }
}
