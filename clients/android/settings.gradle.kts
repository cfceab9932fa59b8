// Builds the DropTrack Android library on its own (`gradle :assembleRelease` here). An app that
// includes it as a module instead (see README.md) uses its own settings and its own plugin
// versions; the versions below only apply to this standalone build.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
    plugins {
        id("com.android.library") version "8.11.1"
        id("org.jetbrains.kotlin.android") version "2.2.0"
    }
}

dependencyResolutionManagement {
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "droptrack-android"
