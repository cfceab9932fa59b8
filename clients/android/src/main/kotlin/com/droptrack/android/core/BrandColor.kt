package com.droptrack.android.core

/**
 * The delivery card's brand colour, the one both platforms draw with. [DEFAULT] is
 * `vectors/brand.json`'s, to which BrandColorTests holds it (ContractTests hold the Swift widget's
 * `DeliveryBrand.defaultColor` to the same file). An app sets its own with a manifest meta-data
 * entry named [MANIFEST_KEY] (the Expo config plugin's `brandColor` writes it, and the widget
 * extension's `DropTrackBrandColor` too).
 */
object BrandColor {
    /** DropTrack's orange. */
    const val DEFAULT = "#FF5A1F"
    /** `<meta-data android:name="com.droptrack.android.BRAND_COLOR" android:value="#0A84FF"/>` in the app's manifest. */
    const val MANIFEST_KEY = "com.droptrack.android.BRAND_COLOR"

    private val rgb = Regex("^#[0-9A-Fa-f]{6}$")

    /** The app's colour when it is `#RRGGBB`; else the default, with a [log] line naming the entry when it was set wrong. */
    fun resolve(configured: String?, log: (String) -> Unit): String {
        if (configured == null) return DEFAULT
        if (rgb.matches(configured)) return configured
        log("$MANIFEST_KEY is '$configured': use #RRGGBB (e.g. $DEFAULT); the card uses DropTrack's $DEFAULT meanwhile")
        return DEFAULT
    }
}
