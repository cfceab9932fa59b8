// The DropTrack Android library: Live Updates from DropTrack FCM data messages and the token
// registration. compileSdk 36: the Android 16 QPR1 (36.1) calls come from androidx core 1.17's
// NotificationCompat, which backports them, so no call here needs compileSdk 36.1
// (tools/api_guard.py fails the build here when one does, or when a call above minSdk is unguarded).
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "com.droptrack.android"
    compileSdk = 36

    defaultConfig {
        // Expo's default minSdk is 24; notification channels (26) come through NotificationChannelCompat.
        minSdk = 24
        consumerProguardFiles("consumer-rules.pro")
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    lint {
        // The same rule tools/api_guard.py applies without Gradle.
        error += "NewApi"
        abortOnError = true
    }
}

kotlin {
    jvmToolchain(17)
}

dependencies {
    // 1.17 backports Android 16's ProgressStyle and the 36.1 promotion request to compileSdk 36.
    implementation("androidx.core:core:1.17.0")
    // 25.0.2: 25.1.0 deprecates getToken/onNewToken for Installation-ID registration, which the
    // DropTrack server does not take yet (it registers FCM tokens).
    implementation("com.google.firebase:firebase-messaging:25.0.2")
    testImplementation("junit:junit:4.13.2")
}
