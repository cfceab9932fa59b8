// Look-alike of android.security.keystore.KeyProperties (API 23), from the Android API reference:
// the names a Keystore AES-GCM key is made with. The values are the platform's.
package android.security.keystore;

public abstract class KeyProperties {
    KeyProperties() {}

    public static final String BLOCK_MODE_GCM = "GCM";
    public static final String ENCRYPTION_PADDING_NONE = "NoPadding";
    public static final String KEY_ALGORITHM_AES = "AES";
    public static final int PURPOSE_DECRYPT = 2;
    public static final int PURPOSE_ENCRYPT = 1;
}
