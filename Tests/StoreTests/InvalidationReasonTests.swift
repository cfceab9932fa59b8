import DropTrackStore
import Testing

@Suite("Invalidation reasons")
struct InvalidationReasonTests {
    /// The column has held these texts since before the enum: each must read back as its case, or tokens
    /// invalidated by an older server would change meaning (a superseded token reported as dead, say).
    @Test(
        "the server's reasons keep the stored text they always had, and read back as themselves",
        arguments: [
            (InvalidationReason.superseded, "superseded"), (.subscribedToChannel, "subscribed_to_channel"),
            (.deleted, "deleted"), (.activityEnded, "activity_ended"), (.deviceEnded, "device_ended"),
            (.deviceDismissed, "device_dismissed"), (.deviceLost, "device_lost"),
        ])
    func serverReasons(reason: InvalidationReason, stored: String) {
        #expect(reason.stored == stored)
        #expect(InvalidationReason(stored: stored) == reason)
        #expect("\(reason)" == stored)
    }

    @Test("a provider's word is kept as the provider wrote it")
    func providerWords() {
        for word in ["Unregistered", "BadDeviceToken", "UNREGISTERED", "ExpiredToken"] {
            #expect(InvalidationReason(stored: word) == .provider(word))
            #expect(InvalidationReason.provider(word).stored == word)
        }
    }
}
