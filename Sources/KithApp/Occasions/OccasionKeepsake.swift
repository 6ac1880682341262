import Glibc
import KithHTTP
import KithMedia
import KithStorage
import KithSync
import KithTemplates

/// The keepsake download: the occasion as one zip holding a static
/// `index.html`, its stylesheet and every unlocked gift's media, for the
/// host and the celebrant. Nothing is copied: the archive's headers are
/// built in memory and the media files are spliced into the response
/// straight from storage, one at a time, so a download that is never read
/// holds no disk and one descriptor at most.
enum OccasionKeepsake {
    static let download = Route(.get, "/occasions/:occasion/keepsake")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        // Occasions whose archive is being planned right now, in this app.
        // Planning reads each new file once for its CRC-32, so a second
        // request for the same occasion waits its turn instead of doubling that.
        let building = Lock<Set<Int64>>([])
        Endpoint(download) { context in try keepsake(context, building: building) }
    }

    static func keepsake(_ context: RequestContext, building: Lock<Set<Int64>>) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        try scope.require(\.canKeep, "The keepsake is for the host and \(scope.occasion.celebrantName) to download.")
        guard building.withLock({ $0.insert(scope.id).inserted }) else {
            var headers = HTTPHeaders()
            headers.add("Retry-After", "5")
            throw HTTPError(
                .tooManyRequests, "The keepsake is being put together for another download. Please try again in a few seconds.",
                headers: headers)
        }
        defer { _ = building.withLock { $0.remove(scope.id) } }

        let app = context.app
        let zone = context.user?.timeZone ?? "UTC"
        let (model, files) = try app.database.read { db in try build(db, scope: scope, zone: zone, app: app) }
        let stylesheet = app.assets.asset(named: "css/keepsake.css")?.bytes ?? []
        let segments: [BodySegment]
        do {
            segments = try archive(model: model, stylesheet: stylesheet, files: files, media: app.media, now: app.now)
        } catch {
            throw HTTPError.internal(error)
        }
        var response = Response(status: .ok, body: .segments(segments))
        response.headers.add("Content-Type", "application/zip")
        response.headers.add("Cache-Control", "no-store")
        response.headers.set("Content-Disposition", "attachment; filename=\"\(fileName(scope.occasion.name)).zip\"")
        return response
    }

    /// The archive as the response sends it: headers and the page as bytes,
    /// each media file as itself.
    static func archive(
        model: Keepsake.Model, stylesheet: [UInt8], files: [(String, String)], media: MediaStore, now: Int64
    ) throws -> [BodySegment] {
        var segments: [BodySegment] = []
        var pending: [UInt8] = []
        let zip = ZipWriter(modificationTime: now) { pending += $0 }
        try zip.add(name: "index.html", bytes: Keepsake.render(model).bytes)
        try zip.add(name: "style.css", bytes: stylesheet)
        for (name, path) in files {
            guard let size = MediaStore.size(of: path) else { throw MediaStore.MediaFailure.unreadable(path) }
            let crc = try media.crc32(ofFileAt: path)
            try zip.add(name: name, size: UInt64(size), crc32: crc) {
                segments.append(.bytes(pending))
                pending = []
                segments.append(.file(path: path, length: size))
            }
        }
        try zip.finish()
        segments.append(.bytes(pending))
        return segments
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

    /// The page's model and the media files it names (archive name, path).
    static func build(_ db: Connection, scope: OccasionScope, zone: String, app: KithApp) throws -> (Keepsake.Model, [(String, String)]) {
        let occasion = scope.occasion
        let members = try OccasionStore.members(db, occasionID: scope.id)
        let names = Dictionary(members.map { ($0.userID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let media = Dictionary(grouping: try OccasionMediaStore.items(db, occasionID: scope.id), by: { $0.giftID ?? 0 })
        var files: [(String, String)] = []
        var named: Set<String> = []
        // Each file once in media/, however many places name it.
        func kept(_ sha256: String, mimeType: String, variant: Bool = false) -> String {
            let name = "media/\(sha256.prefix(16)).\(OccasionMedia.fileExtension(mimeType))"
            if named.insert(name).inserted { files.append((name, variant ? app.media.variantPath(for: sha256) : app.media.path(for: sha256))) }
            return name
        }
        func archived(_ items: [OccasionMediaStore.Item], giver: String) -> [MediaView] {
            OccasionMedia.views(items, occasionID: scope.id, giver: giver, removable: false).enumerated().map { index, view in
                let item = items[index]
                var view = view
                view.url = kept(item.sha256, mimeType: item.mimeType)
                view.picture = keptPicture(item.photo, original: view.url, mimeType: item.mimeType)
                return view
            }
        }
        // The archive keeps originals; a photo browsers cannot show (HEIC)
        // is shown by its largest JPEG variant, kept beside it.
        func keptPicture(_ photo: PhotoVariants.Photo?, original: String, mimeType: String) -> MediaView.Picture? {
            guard let photo else { return nil }
            let showable = mimeType != KithMedia.MediaType.heic.mimeType
            let stand = showable ? nil : photo.variants.last { $0.format == .jpeg }
            return MediaView.Picture(
                width: photo.width, height: photo.height,
                sources: stand.map { [.init(url: kept($0.sha256, mimeType: "image/jpeg", variant: true), width: $0.width, mimeType: "image/jpeg")] } ?? [],
                original: showable ? original : nil)
        }
        let thanks = Dictionary(try ThanksStore.all(db, occasionID: scope.id).map { ($0.giftID, $0) }, uniquingKeysWith: { first, _ in first })
        // A thank-you's photo or voice note goes into media/ like a gift's.
        func keptThanks(_ given: ThanksStore.Thanks) -> Keepsake.Thanks {
            let views = OccasionThanks.mediaViews(given, occasionID: scope.id, celebrant: occasion.celebrantName).map { view in
                var view = view
                if let sha256 = given.sha256, let mimeType = given.mimeType {
                    view.url = kept(sha256, mimeType: mimeType)
                    view.picture = keptPicture(given.photo, original: view.url, mimeType: mimeType)
                }
                return view
            }
            return Keepsake.Thanks(heading: "Thanks from \(occasion.celebrantName)", words: given.body, media: views)
        }
        let gifts = try OccasionStore.gifts(db, occasionID: scope.id).filter { $0.state == .unlocked }.map { gift in
            let giver = FormerMember.name(names[gift.authorID])
            return Keepsake.Gift(
                title: "\(gift.kind.label) from \(giver)", letter: gift.body,
                media: archived(media[gift.id] ?? [], giver: giver),
                thanks: thanks[gift.id].map(keptThanks),
                reactions: try OccasionThanks.keptReactions(db, giftID: gift.id))
        }
        let timeline = try OccasionPages.timelineView(db, scope, zone: zone, csrf: nil)
        // The timeline's entries come in the order of its rows; a row names
        // the challenge whose proof (words, photo) the keepsake keeps too.
        let rows = try OccasionStore.timeline(db, occasionID: scope.id)
        let challenges = try [Challenge.Kind.challenge, .dare].flatMap { try OccasionStore.challenges(db, occasionID: scope.id, kind: $0) }
        let proofs = Dictionary(grouping: media.values.joined().filter { $0.challengeID != nil }, by: { $0.challengeID ?? 0 })
        let moments = zip(timeline.entries, rows).map { entry, row in
            var moment = Keepsake.Moment(
                title: entry.title, detail: entry.detail, when: entry.when, isoTime: entry.isoTime, isGift: entry.kind == .gift)
            if entry.kind == .challenge || entry.kind == .dare, let id = row.subjectID,
                let challenge = challenges.first(where: { $0.id == id }), scope.canSee(challenge)
            {
                moment.proofText = challenge.proofText.flatMap { $0.isEmpty ? nil : $0 }
                moment.proofMedia = archived(proofs[id] ?? [], giver: occasion.celebrantName)
            }
            return moment
        }
        let model = Keepsake.Model(
            name: occasion.name, kindLabel: occasion.kind.label, celebrantName: occasion.celebrantName,
            date: TimeText.longDate(occasion.date), moments: moments, gifts: gifts,
            message: timeline.badge.isOpen ? timeline.badge.message : nil)
        return (model, files)
    }
}
