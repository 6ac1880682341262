/// What a guest is asked when joining through an invite signed out: a name,
/// an avatar and a time zone (the page script picks the browser's). The join
/// pages of every feature embed these fields in their own form.
public enum GuestFields {
    /// `timeZoneHint` says what the zone is for where the guest is joining.
    public static func render(form: FormState, avatars: [SettingsPage.AvatarChoice], timeZones: [String], timeZoneHint: String? = nil) -> HTML {
        """
        \(FormField.text(name: "display_name", label: "Your name", value: form.values["display_name"], hint: "What everyone here will see.", error: form.errors["display_name"], required: true, maxLength: 60, autocomplete: "name"))
        \(SettingsPage.avatarField(avatars, selected: form.values["avatar"], error: form.errors["avatar"]))
        \(SignUpPage.timeZoneField(timeZones, selected: form.values["time_zone"], error: form.errors["time_zone"], fresh: form.isValid, hint: timeZoneHint))
        """
    }
}
