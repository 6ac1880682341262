import KithHTTP
import KithMedia
import KithStorage
import KithTemplates

/// A gift's photos, video or voice note, and a challenge's photo proof:
/// uploads, who may see them, and serving them.
enum OccasionMedia {
    static let show = Route(.get, "/occasions/:occasion/media/:media")

    /// Upload routes take their size limits from the configuration, so they
    /// are made when the app is built; these patterns name them for links.
    static let photosPattern = "/occasions/:occasion/gift/photos"
    static let videoPattern = "/occasions/:occasion/gift/video"
    static let voicePattern = "/occasions/:occasion/gift/voice"
    static let remove = Route(.post, "/occasions/:occasion/gift/media/:media/remove")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        let limits = app.configuration.mediaLimits
        Endpoint(Route(.post, photosPattern, body: .uploads(maxFileBytes: limits.photoBytes, maxFiles: 10))) { context in
            try upload(context, field: "photo", kind: .photo, giftKind: .photos, limit: limits.photoBytes)
        }
        Endpoint(Route(.post, videoPattern, body: .uploads(maxFileBytes: limits.videoBytes, maxFiles: 1))) { context in
            try upload(context, field: "video", kind: .video, giftKind: .video, limit: limits.videoBytes)
        }
        Endpoint(Route(.post, voicePattern, body: .uploads(maxFileBytes: limits.voiceBytes, maxFiles: 1))) { context in
            try upload(context, field: "voice", kind: .audio, giftKind: .voice, limit: limits.voiceBytes)
        }
        Endpoint(remove) { context in try removeMedia(context) }
        Endpoint(show) { context in try serve(context) }
    }

    static func path(_ pattern: String, _ occasionID: Int64) -> String {
        pattern.replacingOccurrences(of: ":occasion", with: String(occasionID))
    }

    /// The views of a gift's media for a page, labelled for people.
    static func views(_ items: [OccasionMediaStore.Item], occasionID: Int64, giver: String, removable: Bool) -> [MediaView] {
        let photos = items.filter { $0.kind == .photo }.count
        var photoIndex = 0
        return items.map { item -> MediaView in
            let label: String
            switch item.kind {
            case .photo:
                photoIndex += 1
                label = photos == 1 ? "Photo from \(giver)" : "Photo \(photoIndex) of \(photos) from \(giver)"
            case .video: label = "Video from \(giver)"
            case .audio: label = "Voice note from \(giver)"
            }
            let original = url(item, occasionID: occasionID)
            var view = MediaView(
                id: item.id, kind: MediaView.Kind(rawValue: item.kind.rawValue) ?? .photo, url: original,
                mimeType: item.mimeType, durationMs: item.durationMs, label: label,
                removeAction: removable ? remove.path(occasionID, item.id) : nil,
                picture: PhotoVariants.picture(
                    item.photo, base: show.path(occasionID, item.id), original: original, mimeType: item.mimeType))
            // The first photo is usually in view as the page opens.
            view.eager = item.kind == .photo && photoIndex == 1
            return view
        }
    }

    /// The address pages use for a file. A row's id can come back for other
    /// bytes (a removed photo's id is reused by the next upload), and the file
    /// is cached for an hour, so the address also names the content: new
    /// bytes, new address, and an old address never answers with them.
    static func url(_ item: OccasionMediaStore.Item, occasionID: Int64) -> String {
        "\(show.path(occasionID, item.id))?\(versionField)=\(version(item.sha256))"
    }

    static let versionField = "v"

    static func version(_ sha256: String) -> String { String(sha256.prefix(16)) }

    // MARK: Uploading

    /// Stores the uploaded files and attaches them to the author's draft gift
    /// (made now if needed) in one transaction. A video or a voice note is
    /// the whole gift's media; photos add up to ten.
    static func upload(_ context: RequestContext, field: String, kind: MediaKind, giftKind: GiftKind, limit: Int) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        try scope.require(\.canContribute, "Gifts are made for you, not by you.")
        try scope.requireOpen()
        let app = context.app
        let files = context.request.form.files(field).filter { $0.size > 0 || !$0.filename.isEmpty }
        guard !files.isEmpty else {
            return try OccasionPages.ownGift(
                context, form: nil, status: .unprocessableContent,
                uploadError: "Choose a \(MediaStore.noun(kind)) first.")
        }
        let duration = context.request.form["duration_ms"].flatMap { Int($0) }.map { min(max($0, 0), 86_400_000) }
        let stored: [MediaStore.Stored]
        do {
            stored = try files.map { try app.media.accept($0, kind: kind, limit: limit) }
        } catch {
            // A refusal is shown beside the upload forms; anything else is ours.
            guard let refusal = error as? HTTPError, refusal.status.code < 500 else { throw error }
            return try OccasionPages.ownGift(context, form: nil, status: refusal.status, uploadError: refusal.message)
        }
        let outcome = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            try OccasionMediaStore.attachToDraft(
                tx, occasionID: scope.id, authorID: scope.viewer.userID, files: stored, as: giftKind,
                durationMs: kind == .photo ? nil : duration, media: app.media, now: app.now)
        }
        if case .tooMany(let total) = outcome {
            return try OccasionPages.ownGift(
                context, form: nil, status: .unprocessableContent,
                uploadError: "A gift holds up to ten photos; this would make \(total).")
        }
        let accepted = outcome == .attached
        guard accepted else { throw HTTPError(.conflict, "Your gift has been sent, so it can't change now.") }
        return try OccasionActions.redirect(context, OccasionRoutes.gift.path(scope.id), notice: "uploaded")
    }

    static func removeMedia(_ context: RequestContext) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        try scope.require(\.canContribute, "Gifts are made for you, not by you.")
        let mediaID = try context.request.parameter("media", as: Int64.self)
        let app = context.app
        let removed = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            try OccasionMediaStore.removeFromDraft(
                tx, occasionID: scope.id, authorID: scope.viewer.userID, mediaID: mediaID, media: app.media)
        }
        guard removed else { throw HTTPError.notFound() }
        return try OccasionActions.redirect(context, OccasionRoutes.gift.path(scope.id), notice: "saved")
    }

    // MARK: Variants

    /// The background maker of photo variants, woken when a photo is
    /// stored. When a photo's variants are ready, every occasion showing it
    /// (as a gift, a proof or a thank-you) refetches its live part.
    static func variantMaker(_ app: KithApp) -> PhotoVariants.Maker {
        let live = app.live
        let maker = PhotoVariants.Maker(
            database: app.database, media: app.media, logger: app.logger, clock: app.configuration.clock
        ) { tx, sha256 in
            let occasions: [Int64] = try tx.query("""
                SELECT occasion_id FROM occasion_media WHERE sha256 = \(sha256)
                UNION SELECT occasion_id FROM occasion_thanks WHERE sha256 = \(sha256)
                """).map { try $0.get("occasion_id") }
            tx.afterCommit {
                for id in occasions { live.publish(topic: OccasionRoutes.topic(id), fragments: [OccasionRoutes.liveFragment]) }
            }
        }
        app.media.whenPhotoStored { [weak maker] in maker?.nudge() }
        return maker
    }

    // MARK: Serving

    /// The usual extension for a stored type, for file names people see.
    static func fileExtension(_ mimeType: String) -> String {
        KithMedia.MediaType.allowed.first { $0.mimeType == mimeType }?.fileExtension ?? "bin"
    }

    /// Who may see a file: a gift's media as the gift itself (its author
    /// always, the host once sent, the celebrant once unlocked); a proof
    /// photo with its challenge. Everyone else: not found.
    static func mayView(_ item: OccasionMediaStore.Item, scope: OccasionScope, db: some Queryable) throws -> Bool {
        if let giftID = item.giftID {
            guard let gift = try OccasionStore.gift(db, occasionID: scope.id, id: giftID) else { return false }
            return scope.canRead(gift)
        }
        if let challengeID = item.challengeID, let challenge = try OccasionStore.challenge(db, occasionID: scope.id, id: challengeID) {
            return scope.canSee(challenge)
        }
        return false
    }

    static func serve(_ context: RequestContext) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        let mediaID = try context.request.parameter("media", as: Int64.self)
        let found = try context.app.database.read { db -> OccasionMediaStore.Item? in
            guard let item = try OccasionMediaStore.item(db, occasionID: scope.id, id: mediaID), try mayView(item, scope: scope, db: db)
            else { return nil }
            return item
        }
        guard let item = found else { throw HTTPError.notFound() }
        let app = context.app
        if let variant = try PhotoVariants.response(context, photo: item.photo, media: app.media, fileName: "kith-\(item.id)") {
            return variant
        }
        // An address naming other content is an old one: those bytes are gone.
        let asked = context.request.query[versionField]
        if let asked, asked != version(item.sha256) { throw HTTPError.notFound() }
        // Never HTML, never sniffed, never able to run anything even when
        // opened on its own: the stored type, nosniff (on every response),
        // a sandboxing policy and a plain file name.
        var response = try Response.file(
            at: context.app.media.path(for: item.sha256), contentType: item.mimeType, request: context.request.head,
            cacheControl: asked == nil ? "private, no-cache" : "private, max-age=3600")
        response.headers.set("Content-Security-Policy", "default-src 'none'; img-src 'self'; media-src 'self'; sandbox")
        response.headers.set("Content-Disposition", "inline; filename=\"kith-\(item.id).\(fileExtension(item.mimeType))\"")
        return response
    }
}
