/// What kind of thing an uploaded file is, decided from its bytes.
public enum MediaKind: String, Sendable, CaseIterable {
    case photo, video, audio
}
