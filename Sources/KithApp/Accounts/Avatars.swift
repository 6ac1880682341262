import KithHTTP

/// One of the bundled avatar drawings in `Public/avatars/`.
struct Avatar: Sendable, Hashable, Identifiable {
    /// Stored with the user and used in forms: `"fox"`.
    let id: String
    /// The asset name below `Public/`, for `StaticFiles.url(_:)`: `"avatars/fox.svg"`.
    let file: String
    /// What the picture shows, for `alt` text and screen readers: `"Fox"`.
    let label: String

    init(_ id: String, _ label: String) {
        self.id = id
        self.file = "avatars/\(id).svg"
        self.label = label
    }
}

/// A colour that stands for a user beside their avatar (rings, initials,
/// their mark on a shared board).
struct AvatarColour: Sendable, Hashable, Identifiable {
    /// Stored with the user: `"teal"`.
    let id: String
    /// `#RRGGBB`, for an SVG `fill` or a CSS custom property.
    let hex: String
}

/// The bundled avatars and avatar colours, and the default pick for a new
/// user: a stable hash of the display name, so the same name gets the same
/// face on every page and after every restart, with no stored state.
enum Avatars {
    /// Every avatar, in a fixed order. The order is part of the default pick
    /// (`hash % count`): append new drawings at the end, never reorder or
    /// remove, or users who never chose would see their face change.
    static let all: [Avatar] = [
        Avatar("fox", "Fox"),
        Avatar("owl", "Owl"),
        Avatar("cat", "Cat"),
        Avatar("frog", "Frog"),
        Avatar("bear", "Bear"),
        Avatar("whale", "Whale"),
        Avatar("cactus", "Cactus"),
        Avatar("moon", "Moon"),
        Avatar("penguin", "Penguin"),
        Avatar("bunny", "Bunny"),
    ]

    /// Colours that pass 3:1 (WCAG 2.x non-text contrast) against both the
    /// light page (#FBF7F4) and the dark page (#17141D), so a ring or a mark
    /// in any of them is visible in either theme. Relative luminance has to
    /// sit between 0.123 and 0.278 for that; ratios (cream · dark):
    ///
    ///     purple #7C5CFC  4.11 · 4.15
    ///     blue   #3D7FE0  3.71 · 4.60
    ///     teal   #178A8A  3.91 · 4.37
    ///     green  #2B9150  3.74 · 4.56
    ///     gold   #A27C00  3.64 · 4.70
    ///     orange #C96A12  3.55 · 4.81
    ///     coral  #E0533D  3.60 · 4.74
    ///     pink   #D94E8F  3.63 · 4.71
    ///
    /// The same ordering rule as `all` applies.
    static let colours: [AvatarColour] = [
        AvatarColour(id: "purple", hex: "#7C5CFC"),
        AvatarColour(id: "blue", hex: "#3D7FE0"),
        AvatarColour(id: "teal", hex: "#178A8A"),
        AvatarColour(id: "green", hex: "#2B9150"),
        AvatarColour(id: "gold", hex: "#A27C00"),
        AvatarColour(id: "orange", hex: "#C96A12"),
        AvatarColour(id: "coral", hex: "#E0533D"),
        AvatarColour(id: "pink", hex: "#D94E8F"),
    ]

    private static let byID: [String: Avatar] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    private static let coloursByID: [String: AvatarColour] = Dictionary(
        uniqueKeysWithValues: colours.map { ($0.id, $0) }
    )

    /// The avatar with this id, or nil for an id that is not (or no longer) bundled.
    static func named(_ id: String) -> Avatar? { byID[id] }

    /// The avatar colour with this id, or nil.
    static func colour(named id: String) -> AvatarColour? { coloursByID[id] }

    /// The default avatar for a display name.
    static func forName(_ displayName: String) -> Avatar {
        all[Int(fnv1a32(displayName) % UInt32(all.count))]
    }

    /// The picture every page shows for a person: the avatar they chose, or,
    /// for a stored id that is not (or no longer) bundled, the default their
    /// account was given at sign-up. That default is `forName` of the
    /// account's display name — not of a name used in one occasion, nor of
    /// the stored id — so the same person never shows two faces.
    static func avatarURL(_ avatar: String, displayName: String, assets: StaticFiles) -> String {
        assets.url((named(avatar) ?? forName(displayName)).file)
    }

    /// The default colour for a display name. It reads the hash's top byte,
    /// where `forName` reads the whole hash modulo the avatar count, so two
    /// names with the same avatar usually still differ in colour. The top
    /// byte rather than bits 16 and up: FNV's multiplications carry upward,
    /// so the highest bits are the best mixed, and names that differ only in
    /// their last character ("Player 1", "Player 2", …) bunch up in bits
    /// 16–18 but spread evenly over the top byte.
    static func colour(forName displayName: String) -> AvatarColour {
        colours[Int((fnv1a32(displayName) >> 24) % UInt32(colours.count))]
    }

    /// 32-bit FNV-1a over the UTF-8 bytes: for each byte, XOR it in, then
    /// multiply by the FNV prime (wrapping). The constants are the published
    /// 32-bit ones: offset basis 2166136261 (0x811C9DC5), prime 16777619
    /// (0x01000193). Chosen because it is tiny, fast on short strings and
    /// defined byte for byte, so the result never depends on the platform,
    /// the process (unlike `Hasher`, which is seeded per run) or the toolchain.
    static func fnv1a32(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }
}
