// The plugin's changes to the Android project, as plain functions over plain values (tested without
// Expo's prebuild; `withDropTrack.ts` hands them Expo's parsed files).
import type { AndroidConfig, AndroidManifest } from '@expo/config-plugins';
import type { ExpoConfig } from '@expo/config-types';
import { DropTrackPluginError, type DropTrackPluginOptions } from './transforms';

/**
 * Notifications at all (a runtime permission from Android 13) and promotion to a Live Update
 * (Android 16; without it `canPostPromotedNotifications()` is false and the update shows as an
 * ordinary notification). The library's manifest declares them too; the app's says so plainly.
 */
export const androidPermissions = [
  'android.permission.POST_NOTIFICATIONS',
  'android.permission.POST_PROMOTED_NOTIFICATIONS',
];

/** The DropTrack library's FirebaseMessagingService. */
export const dropTrackService = 'com.droptrack.android.DropTrackFcmService';
export const messagingEvent = 'com.google.firebase.MESSAGING_EVENT';
/** expo-notifications declares its FirebaseMessagingService with this intent-filter priority. */
export const expoNotificationsPriority = -1;

/** Whether the app has expo-notifications: listed as a plugin, or a dependency in package.json. */
export function hasExpoNotifications(config: ExpoConfig, dependencies: Record<string, string> | undefined): boolean {
  const listed = (config.plugins ?? []).some((entry) => (Array.isArray(entry) ? entry[0] : entry) === 'expo-notifications');
  return listed || (dependencies !== undefined && 'expo-notifications' in dependencies);
}

/** How FCM reaches the app's two would-be receivers, decided once from the options and the app. */
export interface FcmCoexistence {
  /** DropTrack's service receives (and forwards the rest), or is removed. */
  receiver: 'droptrack' | 'expo-notifications';
  /** The priority DropTrack's intent filter gets: above expo-notifications' when both are there. */
  priority: number;
}

export function fcmCoexistence(options: DropTrackPluginOptions, expoNotifications: boolean): FcmCoexistence {
  const receiver = options.fcmReceiver ?? 'droptrack';
  if (receiver === 'expo-notifications' && !expoNotifications) {
    throw new DropTrackPluginError(
      "fcmReceiver is 'expo-notifications' but the app has no expo-notifications: remove the option (DropTrack's service then receives FCM) or add expo-notifications",
    );
  }
  return { receiver, priority: expoNotifications ? expoNotificationsPriority + 2 : expoNotificationsPriority };
}

type ManifestService = NonNullable<AndroidConfig.Manifest.ManifestApplication['service']>[number];

/**
 * The app manifest's FCM service: DropTrack's, replacing the library's declaration with the
 * priority [coexistence] settled (`tools:node="replace"`), or a `tools:node="remove"` that drops it.
 * Android starts one service per intent; the higher priority wins, so with expo-notifications in
 * the app DropTrack's takes priority 1 and hands expo-notifications what is not DropTrack's.
 */
export function fcmServiceElement(coexistence: FcmCoexistence): ManifestService {
  if (coexistence.receiver === 'expo-notifications') {
    return { $: { 'android:name': dropTrackService, 'tools:node': 'remove' } };
  }
  // The config-plugins type names no android:priority, which the XML attribute takes.
  const filter = {
    $: { 'android:priority': String(coexistence.priority) },
    action: [{ $: { 'android:name': messagingEvent } }],
  } as unknown as AndroidConfig.Manifest.ManifestIntentFilter;
  return {
    $: { 'android:name': dropTrackService, 'android:exported': 'false', 'tools:node': 'replace' },
    'intent-filter': [filter],
  };
}

/** The manifest meta-data the Android library reads the brand colour from (`BrandColor.MANIFEST_KEY`). */
export const brandColorMetaData = 'com.droptrack.android.BRAND_COLOR';

/**
 * The permissions (once each), the tools namespace, the FCM service (replaced if already there) and,
 * when the options set one, the brand colour's meta-data (replaced too).
 */
export function applyAndroidManifest(
  manifest: AndroidManifest,
  coexistence: FcmCoexistence,
  brandColor?: string,
): AndroidManifest {
  const existing = manifest.manifest['uses-permission'] ?? [];
  const names = new Set(existing.map((permission) => permission.$['android:name']));
  const added = androidPermissions.filter((name) => !names.has(name)).map((name) => ({ $: { 'android:name': name } }));
  const applications = manifest.manifest.application ?? [];
  if (applications.length === 0) {
    throw new DropTrackPluginError('the AndroidManifest.xml has no <application>: run `npx expo prebuild --clean`');
  }
  const [main, ...others] = applications;
  const services = (main.service ?? []).filter((service) => service.$['android:name'] !== dropTrackService);
  const metaData = (main['meta-data'] ?? []).filter((entry) => entry.$['android:name'] !== brandColorMetaData);
  if (brandColor !== undefined) metaData.push({ $: { 'android:name': brandColorMetaData, 'android:value': brandColor } });
  return {
    ...manifest,
    manifest: {
      ...manifest.manifest,
      $: { ...manifest.manifest.$, 'xmlns:tools': 'http://schemas.android.com/tools' },
      'uses-permission': [...existing, ...added],
      application: [
        { ...main, service: [...services, fcmServiceElement(coexistence)], 'meta-data': metaData },
        ...others,
      ],
    },
  };
}

/**
 * Points `android.googleServicesFile` at the file, so Expo's own prebuild steps copy it into
 * `android/app/` and apply the Google services Gradle plugin, which initialises Firebase. Without
 * it FCM never starts and no token ever arrives, so its absence stops the prebuild here.
 */
export function applyGoogleServicesFile(config: ExpoConfig, options: DropTrackPluginOptions): ExpoConfig {
  const named = options.googleServicesFile ?? config.android?.googleServicesFile;
  if (named === undefined) {
    throw new DropTrackPluginError(
      "no google-services.json: download it from the Firebase console (Project settings › Your apps › Android) and set 'googleServicesFile' in the plugin's options or 'android.googleServicesFile'",
    );
  }
  return { ...config, android: { ...config.android, googleServicesFile: named } };
}

/** The file must be where `googleServicesFile` says, relative to the project root. */
export function checkGoogleServicesFile(
  exists: (path: string) => boolean,
  resolve: (...parts: string[]) => string,
  projectRoot: string,
  named: string,
): string {
  const source = resolve(projectRoot, named);
  if (!exists(source)) {
    throw new DropTrackPluginError(
      `googleServicesFile '${named}' is not at ${source}; download it from the Firebase console (Project settings › Your apps › Android) or fix the path (relative to the project root)`,
    );
  }
  return source;
}
