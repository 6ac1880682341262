/// One stored photo, video or voice note, as a page shows it.
public struct MediaView: Sendable, Equatable {
    public enum Kind: String, Sendable { case photo, video, audio }
    public var id: Int64
    public var kind: Kind
    public var url: String
    public var mimeType: String
    /// Measured by the recording browser, for voice notes and videos.
    public var durationMs: Int?
    /// Spoken and shown when the file cannot load: "Photo 2 of 3 from Sam".
    public var label: String
    /// In the author's draft: where the remove form posts.
    public var removeAction: String?
    /// A photo's size and right-sized variants, once known.
    public var picture: Picture?
    /// Loaded at once rather than when scrolled near: the first photo a page shows.
    public var eager = false

    public init(
        id: Int64, kind: Kind, url: String, mimeType: String, durationMs: Int?, label: String, removeAction: String? = nil,
        picture: Picture? = nil
    ) {
        self.id = id
        self.kind = kind
        self.url = url
        self.mimeType = mimeType
        self.durationMs = durationMs
        self.label = label
        self.removeAction = removeAction
        self.picture = picture
    }

    /// A photo as `<picture>`: its size as shown (so the page never shifts
    /// when it loads) and its variants, WebP and JPEG, by width.
    public struct Picture: Sendable, Equatable {
        public struct Source: Sendable, Equatable {
            public var url: String
            public var width: Int
            public var mimeType: String
            public init(url: String, width: Int, mimeType: String) {
                self.url = url
                self.width = width
                self.mimeType = mimeType
            }
        }
        public var width: Int
        public var height: Int
        public var sources: [Source]
        /// The stored file when a browser can show it (not HEIC).
        public var original: String?

        public init(width: Int, height: Int, sources: [Source], original: String?) {
            self.width = width
            self.height = height
            self.sources = sources
            self.original = original
        }

        func srcset(_ mimeType: String) -> String {
            sources.filter { $0.mimeType == mimeType }.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
        }

        /// The largest JPEG: what stands in for the original when opened.
        var largestJPEG: String? { sources.last { $0.mimeType == "image/jpeg" }?.url }
    }
}

/// Galleries and players. Each player has a loading state and an error
/// state with a download link (`Public/js/media.js` switches them; without
/// script the browser's own controls and the link remain).
public enum MediaViews {
    public static func render(_ items: [MediaView], csrf: String?) -> HTML {
        guard !items.isEmpty else { return "" }
        let photos = items.filter { $0.kind == .photo }
        let others = items.filter { $0.kind != .photo }
        let gallery: HTML =
            photos.isEmpty
            ? ""
            : "<ul class=\"media-gallery\" role=\"list\">\(photos.map { photo(item: $0, csrf: csrf) })</ul>"
        return "<div class=\"media stack\">\(gallery)\(others.map { player(item: $0, csrf: csrf) })</div>"
    }

    /// A gift as those who may read it see it: its media, then its words
    /// (Markdown), either of which may be missing.
    public static func gift(media: [MediaView], letter: String, csrf: String?) -> HTML {
        let words: HTML = letter.isEmpty ? "" : "<div class=\"letter\">\(Markdown.render(letter))</div>"
        return "\(render(media, csrf: csrf))\(words)"
    }

    /// How wide a gallery photo is drawn (occasions.css: a grid of columns
    /// at least 8rem wide, two across inside a phone's gift card), so the
    /// browser fetches the smallest variant that is sharp at that width.
    public static let gallerySizes = "(max-width: 40rem) 42vw, 12rem"

    static func photo(item: MediaView, csrf: String?) -> HTML {
        """
        <li class="media-gallery__item"><figure class="media-item" data-media>
        \(image(item))
        \(failure(item))\(remove(item, csrf: csrf))
        </figure></li>
        """
    }

    /// The variants when made; before that the original with its size, or,
    /// for a photo browsers cannot show (HEIC), a note until they are made.
    static func image(_ item: MediaView) -> HTML {
        let loading = item.eager ? "eager" : "lazy"
        guard let picture = item.picture else {
            return """
                <a\(attribute: "href", item.url)><img\(attribute: "src", item.url)\(attribute: "alt", item.label)\(attribute: "loading", loading) decoding="async"></a>
                """
        }
        let size: HTML = "\(attribute: "width", String(picture.width))\(attribute: "height", String(picture.height))"
        guard let fallback = picture.largestJPEG ?? picture.original else {
            return """
                <p class="media-item__preparing">\(item.label): getting it ready to show. <a\(attribute: "href", item.url) download>Download the original</a></p>
                """
        }
        guard !picture.sources.isEmpty else {
            return """
                <a\(attribute: "href", fallback)><img\(attribute: "src", fallback)\(attribute: "alt", item.label)\(size)\(attribute: "loading", loading) decoding="async"></a>
                """
        }
        let small = picture.sources.first { $0.mimeType == "image/jpeg" }?.url ?? fallback
        let webp = picture.srcset("image/webp")
        let source: HTML = webp.isEmpty ? "" : "<source type=\"image/webp\"\(attribute: "srcset", webp)\(attribute: "sizes", gallerySizes)>"
        return """
            <a\(attribute: "href", picture.original ?? fallback)><picture>\(source)\
            <img\(attribute: "src", small)\(attribute: "srcset", picture.srcset("image/jpeg"))\(attribute: "sizes", gallerySizes)\(attribute: "alt", item.label)\(size)\(attribute: "loading", loading) decoding="async">\
            </picture></a>
            """
    }

    static func player(item: MediaView, csrf: String?) -> HTML {
        let duration: HTML = item.durationMs.map { "<span class=\"media-item__duration\">\(clock($0))</span>" } ?? ""
        let element = item.kind == .video ? "video" : "audio"
        let poster: HTML = item.kind == .video ? " playsinline" : ""
        return """
            <figure class="media-item media-item--\(item.kind.rawValue)" data-media>
            <figcaption class="media-item__caption">\(item.label) \(duration)</figcaption>
            <\(element) class="media-item__player" controls preload="metadata"\(poster)\(attribute: "aria-label", item.label)><source\(attribute: "src", item.url)\(attribute: "type", item.mimeType)></\(element)>
            <p class="media-item__loading" data-media-loading hidden>Loading…</p>
            \(failure(item))\(remove(item, csrf: csrf))
            </figure>
            """
    }

    static func failure(_ item: MediaView) -> HTML {
        "<p class=\"media-item__error\" data-media-error role=\"alert\" hidden>This couldn't be played here. <a\(attribute: "href", item.url) download>Download it</a> instead.</p>"
    }

    static func remove(_ item: MediaView, csrf: String?) -> HTML {
        guard let action = item.removeAction else { return "" }
        let button: HTML = "<button class=\"button button--secondary button--small\" type=\"submit\"\(attribute: "aria-label", "Remove \(item.label)")>Remove</button>"
        return OccasionPage.action(action, csrf: csrf, button: button)
    }

    public enum RecorderKind: String, Sendable {
        /// The microphone; posts the recording as `voice`.
        case voice
        /// The camera and microphone; posts the recording as `video`.
        case video
    }

    /// Recording in the page (`Public/js/media.js`): record, stop, play it
    /// back, save or record again. Hidden until the script finds it can
    /// record here; the file inputs stay the way everywhere else. The
    /// recording posts to `action` with the page's CSRF token and the
    /// measured duration, as a file from a form would.
    public static func recorder(action: String, kind: RecorderKind, title: String, save: String) -> HTML {
        let preview: HTML =
            kind == .video
            ? "<video class=\"recorder__preview recorder__preview--video\" data-recorder-preview controls playsinline hidden></video>"
            : "<audio class=\"recorder__preview\" data-recorder-preview controls hidden></audio>"
        return """
            <div class="recorder stack" data-recorder\(attribute: "data-recorder-kind", kind.rawValue)\(attribute: "data-action", action) hidden>
            <p class="field__label">\(title)</p>
            <div class="cluster">
            <button class="button button--small" type="button" data-recorder-start>Record</button>
            <button class="button button--small button--danger" type="button" data-recorder-stop hidden>Stop</button>
            <span class="recorder__timer" data-recorder-timer role="timer" aria-live="off">0:00</span>
            </div>
            \(preview)
            <div class="cluster" data-recorder-review hidden>
            <button class="button button--small" type="button" data-recorder-save>\(save)</button>
            <button class="button button--small button--secondary" type="button" data-recorder-again>Record again</button>
            </div>
            <progress class="upload-form__progress" max="100" value="0" hidden></progress>
            <p class="recorder__status muted" data-recorder-status aria-live="polite"></p>
            </div>
            """
    }

    /// "1:05" from milliseconds.
    public static func clock(_ milliseconds: Int) -> String {
        let seconds = max(0, milliseconds / 1000)
        let rest = seconds % 60
        return "\(seconds / 60):\(rest < 10 ? "0" : "")\(rest)"
    }

    public struct Uploads: Sendable {
        public var photosAction: String
        public var videoAction: String
        public var voiceAction: String
        public var photoLimitMB: Int
        public var videoLimitMB: Int
        public var voiceLimitMB: Int
        public var error: String?
        public init(
            photosAction: String, videoAction: String, voiceAction: String, photoLimitMB: Int, videoLimitMB: Int, voiceLimitMB: Int,
            error: String? = nil
        ) {
            self.photosAction = photosAction
            self.videoAction = videoAction
            self.voiceAction = voiceAction
            self.photoLimitMB = photoLimitMB
            self.videoLimitMB = videoLimitMB
            self.voiceLimitMB = voiceLimitMB
            self.error = error
        }
    }

    /// The author's upload forms: photos, a video, a voice note recorded
    /// here or chosen from a file. Each posts on its own (multipart) and
    /// shows its progress when the script runs.
    public static func uploadForms(_ uploads: Uploads, csrf: String?) -> HTML {
        let error: HTML = uploads.error.map { "<p class=\"form-errors\" role=\"alert\" tabindex=\"-1\" id=\"upload-error\">\($0)</p>" } ?? ""
        func form(_ action: String, _ body: HTML, _ button: String) -> HTML {
            """
            <form class="stack upload-form" method="post" enctype="multipart/form-data"\(attribute: "action", action) data-upload>
            \(Layout.csrfField(csrf))\(body)
            <div class="cluster">\(Button.secondary(button, small: true))</div>
            <progress class="upload-form__progress" max="100" value="0" hidden></progress>
            <p class="upload-form__status muted" aria-live="polite"></p>
            </form>
            """
        }
        return """
            <section class="card stack media-uploads" aria-labelledby="media-heading">
            <h3 id="media-heading">Photos, a video or a voice note</h3>
            <p class="muted">A gift can be photos, one video or one voice note. Anything you write above goes with it as a note.</p>
            \(error)
            \(form(uploads.photosAction, """
                <label class="field__label" for="gift-photos">Photos (JPEG, HEIC, PNG, GIF or WebP, up to \(uploads.photoLimitMB) MB each)</label>
                <input class="field__input" id="gift-photos" type="file" name="photo" multiple accept="image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif" required>
                """, "Upload photos"))
            \(form(uploads.videoAction, """
                <label class="field__label" for="gift-video">A video (MP4, MOV or WebM, up to \(uploads.videoLimitMB) MB)</label>
                <input class="field__input" id="gift-video" type="file" name="video" accept="video/mp4,video/quicktime,video/webm" required>
                """, "Upload video"))
            \(recorder(action: uploads.voiceAction, kind: .voice, title: "Record a voice note", save: "Save this voice note"))
            \(form(uploads.voiceAction, """
                <label class="field__label" for="gift-voice">A voice note from a file (M4A, MP3, Ogg, WAV or WebM, up to \(uploads.voiceLimitMB) MB)</label>
                <input class="field__input" id="gift-voice" type="file" name="voice" accept="audio/*" capture="user" required>
                <input type="hidden" name="duration_ms" value="">
                """, "Upload voice note"))
            \(recorder(action: uploads.videoAction, kind: .video, title: "Or record a video here", save: "Save this video"))
            </section>
            """
    }
}
