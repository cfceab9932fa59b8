// Look-alike of android.provider.Settings, compile-only: the screens a person turns an app's
// notifications and Live Updates on in. ACTION_APP_NOTIFICATION_SETTINGS and EXTRA_APP_PACKAGE are
// API 26 (Android API reference); ACTION_APP_NOTIFICATION_PROMOTION_SETTINGS is API 36 (the
// Android 16 API diff from 35 lists it as added; the value as android.txt's stubs have it). Some
// phones lack a screen: startActivity then throws ActivityNotFoundException.
package android.provider;

import droptrack.lookalike.Since;

public final class Settings {
    Settings() {}

    @Since(26)
    public static final String ACTION_APP_NOTIFICATION_SETTINGS = "android.settings.APP_NOTIFICATION_SETTINGS";
    @Since(36)
    public static final String ACTION_APP_NOTIFICATION_PROMOTION_SETTINGS = "android.settings.APP_NOTIFICATION_PROMOTION_SETTINGS";
    @Since(26)
    public static final String EXTRA_APP_PACKAGE = "android.provider.extra.APP_PACKAGE";
}
