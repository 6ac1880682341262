import Glibc
import KithHTTP
import KithMedia
import KithStorage
import KithTemplates

/// The keepsake download: the occasion as one zip holding a static
/// `index.html`, its stylesheet and every unlocked gift's media, for the
/// host and the celebrant. The archive is written to the data directory's
/// `tmp/`, opened for sending and unlinked at once, so nothing is left
/// behind whether the download finishes or not.
enum OccasionKeepsake {
    static let download = Route(.get, "/occasions/:occasion/keepsake")

    static func register(on app: KithApp) {
        app.on(download) { context in try keepsake(context) }
    }

    static func keepsake(_ context: RequestContext) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        try scope.require(\.canKeep, "The keepsake is for the host and \(scope.occasion.celebrantName) to download.")
        let app = context.app
        let zone = context.user?.timeZone ?? "UTC"
        let (model, files) = try app.database.read { db in try build(db, scope: scope, zone: zone, app: app) }
        let stylesheet = app.assets.asset(named: "css/keepsake.css")?.bytes ?? []

        let path = "\(app.configuration.dataDirectory)/tmp/keepsake-\(scope.id)-\(UInt64.random(in: 0...UInt64.max)).zip"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HTTPError.internal(MediaStore.MediaFailure.io("create \(path)", errno)) }
        do {
            defer { close(fd) }
            let zip = ZipWriter(fileDescriptor: fd, modificationTime: app.now)
            try zip.add(name: "index.html", bytes: Keepsake.render(model).bytes)
            try zip.add(name: "style.css", bytes: stylesheet)
            for (name, sha256) in files { try zip.add(name: name, contentsOf: app.media.path(for: sha256)) }
            _ = try zip.finish()
        } catch {
            unlink(path)
            throw HTTPError.internal(error)
        }
        defer { unlink(path) }  // the open response keeps the bytes until sent
        var response = try Response.file(at: path, contentType: "application/zip", request: context.request.head, cacheControl: "no-store")
        response.headers.set("Content-Disposition", "attachment; filename=\"\(fileName(scope.occasion.name)).zip\"")
        return response
    }

    /// "Alex turns 30!" → "kith-alex-turns-30": ASCII letters and digits only.
    static func fileName(_ name: String) -> String {
        var slug = ""
        for scalar in name.lowercased().unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                slug.unicodeScalars.append(scalar)
            } else if !slug.hasSuffix("-") && !slug.isEmpty {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return "kith-" + (slug.isEmpty ? "keepsake" : String(slug.prefix(60)))
    }

    /// The page's model and the media files it names (archive name, hash).
    static func build(_ db: Connection, scope: OccasionScope, zone: String, app: KithApp) throws -> (Keepsake.Model, [(String, String)]) {
        let occasion = scope.occasion
        let members = try OccasionStore.members(db, occasionID: scope.id)
        let names = Dictionary(members.map { ($0.userID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let media = Dictionary(grouping: try OccasionMediaStore.items(db, occasionID: scope.id), by: { $0.giftID ?? 0 })
        var files: [(String, String)] = []
        var named: Set<String> = []
        func archived(_ items: [OccasionMediaStore.Item], giver: String) -> [MediaView] {
            OccasionMedia.views(items, occasionID: scope.id, giver: giver, removable: false).enumerated().map { index, view in
                let item = items[index]
                let name = "media/\(item.sha256.prefix(16)).\(OccasionMedia.fileExtension(item.mimeType))"
                if named.insert(name).inserted { files.append((name, item.sha256)) }
                var view = view
                view.url = name
                return view
            }
        }
        let gifts = try OccasionStore.gifts(db, occasionID: scope.id).filter { $0.state == .unlocked }.map { gift in
            let giver = names[gift.authorID] ?? "someone"
            return Keepsake.Gift(
                title: "\(gift.kind.label) from \(giver)", letter: gift.body,
                media: archived(media[gift.id] ?? [], giver: giver))
        }
        let timeline = try OccasionPages.timelineView(db, scope, zone: zone, csrf: nil)
        let moments = timeline.entries.map { entry in
            Keepsake.Moment(
                title: entry.title, detail: entry.detail, when: entry.when, isoTime: entry.isoTime, isGift: entry.kind == .gift)
        }
        let model = Keepsake.Model(
            name: occasion.name, kindLabel: occasion.kind.label, celebrantName: occasion.celebrantName,
            date: LocalTime.longDate(occasion.date), moments: moments, gifts: gifts,
            message: timeline.badge.isOpen ? timeline.badge.message : nil)
        return (model, files)
    }
}
