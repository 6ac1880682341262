/// What kind of thing an uploaded file is, decided from its bytes.
public enum MediaKind: String, Sendable, CaseIterable {
    case photo, video, audio
}

/// An allowed media type: what we store in the row and send as `Content-Type`.
///
/// Values come only from `MediaSniffer` (and the constants below), never from
/// what the browser claimed, so a stored type is always one we checked.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The container the bytes are in. The stripper dispatches on this, not on
    /// the MIME string, because WebM audio and WebM video share one container.
    public enum Container: String, Sendable, Hashable, CaseIterable {
        case jpeg, png, gif, webp
        /// HEIC/HEIF stills (ISO BMFF): stored, but shown through JPEG and WebP variants.
        case heif
        case mp4, quickTime, webm
        case adts, mpegAudio, ogg, wav
    }

    public let container: Container
    public let mimeType: String
    public let kind: MediaKind
    /// Without the dot; what a download or keepsake file name should end with.
    public let fileExtension: String

    public init(container: Container, mimeType: String, kind: MediaKind, fileExtension: String) {
        self.container = container
        self.mimeType = mimeType
        self.kind = kind
        self.fileExtension = fileExtension
    }

    public var description: String { mimeType }

    public static let jpeg = MediaType(container: .jpeg, mimeType: "image/jpeg", kind: .photo, fileExtension: "jpg")
    public static let png = MediaType(container: .png, mimeType: "image/png", kind: .photo, fileExtension: "png")
    public static let gif = MediaType(container: .gif, mimeType: "image/gif", kind: .photo, fileExtension: "gif")
    public static let webp = MediaType(container: .webp, mimeType: "image/webp", kind: .photo, fileExtension: "webp")
    /// What iPhones take. Browsers cannot show it, so pages never do.
    public static let heic = MediaType(container: .heif, mimeType: "image/heic", kind: .photo, fileExtension: "heic")

    public static let mp4 = MediaType(container: .mp4, mimeType: "video/mp4", kind: .video, fileExtension: "mp4")
    public static let quickTime = MediaType(container: .quickTime, mimeType: "video/quicktime", kind: .video, fileExtension: "mov")
    public static let webmVideo = MediaType(container: .webm, mimeType: "video/webm", kind: .video, fileExtension: "webm")

    /// Safari's recordings and iPhone voice memos: MPEG-4 audio.
    public static let m4a = MediaType(container: .mp4, mimeType: "audio/mp4", kind: .audio, fileExtension: "m4a")
    public static let aac = MediaType(container: .adts, mimeType: "audio/aac", kind: .audio, fileExtension: "aac")
    public static let mp3 = MediaType(container: .mpegAudio, mimeType: "audio/mpeg", kind: .audio, fileExtension: "mp3")
    public static let ogg = MediaType(container: .ogg, mimeType: "audio/ogg", kind: .audio, fileExtension: "ogg")
    public static let wav = MediaType(container: .wav, mimeType: "audio/wav", kind: .audio, fileExtension: "wav")
    /// Chrome's and Firefox's recordings.
    public static let webmAudio = MediaType(container: .webm, mimeType: "audio/webm", kind: .audio, fileExtension: "webm")

    /// Every type the allow-list admits, for tests and for documentation pages.
    public static let allowed: [MediaType] = [
        .jpeg, .png, .gif, .webp, .heic, .mp4, .quickTime, .webmVideo, .m4a, .aac, .mp3, .ogg, .wav, .webmAudio,
    ]
}
