// Look-alike of android.content.SharedPreferences, compile-only, written from the Android API
// reference (android.txt's section was not paged in): the members DropTrack's store uses, all
// present since API 1 (apply since 9). Simplified: the typed getters and putters other than
// String, and the change listeners, are absent.
package android.content;

import androidx.annotation.Nullable;
import java.util.Map;

public interface SharedPreferences {
    Map<String, ?> getAll();

    @Nullable
    String getString(String key, @Nullable String defValue);

    Editor edit();

    interface Editor {
        Editor putString(String key, @Nullable String value);

        Editor remove(String key);

        /** Writes synchronously; false when the write failed. */
        boolean commit();

        void apply();
    }
}
