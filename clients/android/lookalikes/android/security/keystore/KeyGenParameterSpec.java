// Look-alike of android.security.keystore.KeyGenParameterSpec (API 23, below DropTrack's minSdk),
// compile-only, written from the Android API reference (android.txt's section was not paged in):
// the spec of an AES-GCM key generated inside the Android Keystore. It is the parameter spec
// javax.crypto.KeyGenerator.init takes. Simplified: the ~30 other builder options are absent.
package android.security.keystore;

import androidx.annotation.NonNull;

public final class KeyGenParameterSpec implements java.security.spec.AlgorithmParameterSpec {
    KeyGenParameterSpec() {}

    public static final class Builder {
        public Builder(@NonNull String keystoreAlias, int purposes) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public KeyGenParameterSpec build() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setBlockModes(String... blockModes) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setEncryptionPaddings(String... paddings) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setKeySize(int keySize) { throw droptrack.lookalike.Absent.here(); }
    }
}
