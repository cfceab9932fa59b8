/// One check for the app build: a trap only the app's source, entitlements, Info.plist, manifest
/// or Gradle files show (the catalog's "C" traps). A server sees at most a symptom.
public struct ChecklistItem: Sendable, Hashable, Codable {
    /// The catalog id.
    public var id: String
    /// `ios` or `android`.
    public var platform: String
    /// The trap, shortened.
    public var title: String
    /// What to check in the app build.
    public var check: String
    /// What the server sees when the trap is hit, if anything.
    public var serverSymptom: String?

    /// Creates an item.
    public init(id: String, platform: String, title: String, check: String, serverSymptom: String? = nil) {
        self.id = id
        self.platform = platform
        self.title = title
        self.check = check
        self.serverSymptom = serverSymptom
    }
}

extension Doctor {
    /// The app-build checklist: every trap the catalog marks "C" (`droptrack doctor --checklist`).
    public static let checklist: [ChecklistItem] = [
        ChecklistItem(
            id: "DT-071", platform: "ios",
            title: "App and widget compile separate ActivityAttributes copies that drift",
            check: "Generate the app's and the widget's attributes file from one source, or byte-compare them in CI.",
            serverSymptom: "pushes accepted, nothing renders; visible only if the app reports a hash of each copy"),
        ChecklistItem(
            id: "DT-072", platform: "ios",
            title: "Widget extension lacks its ActivityConfiguration, or is not embedded",
            check:
                "The built .app contains the widget extension, and it declares ActivityConfiguration(for:) for every attributes type the server starts."
        ),
        ChecklistItem(
            id: "DT-073", platform: "ios", title: "Activity.request(…, pushType: nil)",
            check: "Every Activity.request passes pushType: .token (or .channel); nil means local updates only.",
            serverSymptom: "an activity reported running that never sends an update token (see DT-041)"),
        ChecklistItem(
            id: "DT-074", platform: "ios", title: "aps-environment entitlement missing from the signed app",
            check: "codesign -d --entitlements - --xml on the built .app lists aps-environment.",
            serverSymptom: "a registered device that never reports Live Activity tokens"),
        ChecklistItem(
            id: "DT-075", platform: "ios", title: "Hand edits to generated native folders vanish on prebuild",
            check:
                "ios/ and android/ are git-ignored under Continuous Native Generation; entitlements and plist keys come from config plugins."
        ),
        ChecklistItem(
            id: "DT-076", platform: "ios", title: "NSSupportsLiveActivities missing from Info.plist",
            check: "The built app's Info.plist has NSSupportsLiveActivities = true."),
        ChecklistItem(
            id: "DT-077", platform: "ios", title: "Deployment target or OS too low for the feature in use",
            check:
                "The deployment target is at least 17.2 when push-to-start is required (18 for channels), and the app reports its OS version with every token.",
            serverSymptom: "starts to devices below 17.2 (the doctor's DT-032 when the OS version is known)"),
        ChecklistItem(
            id: "DT-078", platform: "ios", title: "Token streams not observed from launch, or not saved durably",
            check:
                "One subscriber started at launch saves every pushToStartTokenUpdates and pushTokenUpdates emission before forwarding it.",
            serverSymptom: "no push-to-start token (DT-040) or rotated tokens never arriving (DT-038)"),
        ChecklistItem(
            id: "DT-079", platform: "ios", title: "Activity id kept only in JavaScript or in memory",
            check:
                "On launch and on return to the foreground the app re-reads Activity.activities and re-attaches its token observers."
        ),
        ChecklistItem(
            id: "DT-080", platform: "ios",
            title: "The bridge or local path skips contract validation, or fills in defaults",
            check:
                "Local starts and updates are parsed against the contract at one chokepoint before crossing the bridge; millisecond fields travel as Double."
        ),
        ChecklistItem(
            id: "DT-082", platform: "ios", title: "Local start attempted from the background",
            check: "Starts triggered from background work go through push-to-start instead of Activity.request."),
        ChecklistItem(
            id: "DT-083", platform: "ios", title: "Widget view expects to fetch data",
            check: "The widget renders only the content-state and bundled assets; the contract holds no URLs to fetch."),
        ChecklistItem(
            id: "DT-084", platform: "ios", title: "App Group missing, or different between the app and the widget",
            check:
                "The app's and the extension's entitlements carry the same App Group id, generated from one config value."
        ),
        ChecklistItem(
            id: "DT-085", platform: "ios",
            title: "Widget snapshot structs drift from the host's JSON, with no version probe",
            check: "Widget-side snapshot structs are generated, decode schemaVersion first, and show a mismatch view."),
        ChecklistItem(
            id: "DT-086", platform: "ios", title: "Notification category not registered in the content extension",
            check: "Every aps.category the server may send is in the notification content extension's category list."),
        ChecklistItem(
            id: "DT-087", platform: "ios", title: "Named colors that aren't in the asset catalog",
            check: "Every Color(\"name\") and UIColor(named:) literal resolves to a colorset in the asset catalog."),
        ChecklistItem(
            id: "DT-088", platform: "ios", title: "Automation deep links ignored on a cold start",
            check: "The app handles both the initial URL and the url event, so scripted links work after a cold launch."
        ),
        ChecklistItem(
            id: "DT-116", platform: "android",
            title: "canPostPromotedNotifications() crashes on pre-QPR Android 16 builds",
            check: "The call is guarded by SDK_INT >= 36 and wrapped in runCatching { … }.getOrDefault(false)."),
        ChecklistItem(
            id: "DT-117", platform: "android", title: "Library or compile SDK too old for the Live Update APIs",
            check:
                "compileSdk is at least 36, androidx.core at least 1.17.0, and no notification library is pinned below SDK 36."
        ),
        ChecklistItem(
            id: "DT-118", platform: "android",
            title: "Notification id/tag or PendingIntent request code not stable per activity",
            check: "The notification id and the PendingIntent request code are derived from the activity id.",
            serverSymptom: "duplicate cards; the server's part is a stable activityId in every message (DT-092)"),
        ChecklistItem(
            id: "DT-119", platform: "android",
            title: "Tap intent hard-codes the activity class, or uses the wrong flags",
            check:
                "The tap intent comes from getLaunchIntentForPackage with FLAG_ACTIVITY_SINGLE_TOP | FLAG_ACTIVITY_CLEAR_TOP."
        ),
        ChecklistItem(
            id: "DT-120", platform: "android", title: "PendingIntent without FLAG_IMMUTABLE",
            check: "Every PendingIntent uses FLAG_IMMUTABLE | FLAG_UPDATE_CURRENT."),
        ChecklistItem(
            id: "DT-121", platform: "android", title: "google-services.json missing at prebuild",
            check:
                "A config plugin copies android/app/google-services.json at prebuild and fails loudly when it is absent.",
            serverSymptom: "Android installs that never register an FCM token"),
        ChecklistItem(
            id: "DT-122", platform: "android", title: "Messaging service assumes the app or JS runtime is alive",
            check:
                "The FirebaseMessagingService builds the notification natively; the JS bridge is optional, emitters are cleared on destroy, long work goes to WorkManager."
        ),
        ChecklistItem(
            id: "DT-123", platform: "android", title: "Emulator image without Google Play services",
            check: "Test setups use a google_apis (Play services) emulator image, not plain AOSP."),
    ]

    /// The traps only a device (or DropTrack's emulators and simulators) can observe: the catalog's
    /// "E" entries. The server sees what the device reports about them, nothing more.
    public static let simulatedTraps: [String] = ["DT-081", "DT-111", "DT-112", "DT-113", "DT-114", "DT-115"]
}
