// The plugin's changes to the native projects as plain functions over plain values, so they are
// tested without Expo's prebuild. `withDropTrack.ts` hands them Expo's parsed files.
import type { AndroidManifest, InfoPlist, JSONObject } from '@expo/config-plugins';

/** What `plugins: [["droptrack-expo", { … }]]` in app.json may say. */
export interface DropTrackPluginOptions {
  /** `aps-environment`: `development` for debug builds (sandbox tokens), `production` for the store. */
  apsEnvironment?: 'development' | 'production';
  /** `NSSupportsLiveActivitiesFrequentUpdates`: a larger budget of priority-10 updates. */
  frequentUpdates?: boolean;
  /** The App Group the app and its widget extension share, e.g. `group.com.example.shop`. */
  appGroup?: string;
  /** `google-services.json` from the Firebase console, relative to the project; else `android.googleServicesFile`. */
  googleServicesFile?: string;
}

/** A configuration mistake, with the fix. The prebuild stops on it. */
export class DropTrackPluginError extends Error {
  constructor(message: string) {
    super(`DropTrack config plugin: ${message}`);
    this.name = 'DropTrackPluginError';
  }
}

/** Refuses options that would build an app whose Live Activities silently never appear. */
export function checkOptions(options: DropTrackPluginOptions | undefined | void): DropTrackPluginOptions {
  const checked: DropTrackPluginOptions = options ?? {};
  const environment = checked.apsEnvironment;
  if (environment !== undefined && environment !== 'development' && environment !== 'production') {
    throw new DropTrackPluginError(
      `apsEnvironment is '${String(environment)}'; use 'development' (sandbox tokens) or 'production'`,
    );
  }
  if (checked.appGroup !== undefined && !/^group\.[A-Za-z0-9.-]+$/.test(checked.appGroup)) {
    throw new DropTrackPluginError(
      `appGroup '${checked.appGroup}' must look like 'group.com.example.shop' (Apple requires the 'group.' prefix)`,
    );
  }
  return checked;
}

/** Info.plist: Live Activities on, and frequent updates when asked. */
export function applyInfoPlist(plist: InfoPlist, options: DropTrackPluginOptions): InfoPlist {
  const result: InfoPlist = { ...plist, NSSupportsLiveActivities: true };
  if (options.frequentUpdates) {
    result.NSSupportsLiveActivitiesFrequentUpdates = true;
  } else {
    delete result.NSSupportsLiveActivitiesFrequentUpdates;
  }
  return result;
}

const appGroupsKey = 'com.apple.security.application-groups';

/**
 * Entitlements: `aps-environment` (without it `Activity.request(pushType: .token)` fails and no
 * token is ever issued), and the App Group the widget reads shared state from.
 */
export function applyEntitlements(entitlements: JSONObject, options: DropTrackPluginOptions): JSONObject {
  const result: JSONObject = { ...entitlements, 'aps-environment': options.apsEnvironment ?? 'development' };
  if (options.appGroup !== undefined) {
    const existing = result[appGroupsKey];
    const groups = Array.isArray(existing) ? existing.filter((group): group is string => typeof group === 'string') : [];
    result[appGroupsKey] = groups.includes(options.appGroup) ? groups : [...groups, options.appGroup];
  }
  return result;
}

/**
 * AndroidManifest: notifications at all (a runtime permission from Android 13) and promotion to
 * a Live Update (Android 16; without it `canPostPromotedNotifications()` is false and the
 * update shows as an ordinary notification).
 */
export const androidPermissions = [
  'android.permission.POST_NOTIFICATIONS',
  'android.permission.POST_PROMOTED_NOTIFICATIONS',
];

export function applyAndroidManifest(manifest: AndroidManifest): AndroidManifest {
  const existing = manifest.manifest['uses-permission'] ?? [];
  const names = new Set(existing.map((permission) => permission.$['android:name']));
  const added = androidPermissions.filter((name) => !names.has(name)).map((name) => ({ $: { 'android:name': name } }));
  return { ...manifest, manifest: { ...manifest.manifest, 'uses-permission': [...existing, ...added] } };
}

/** Where `google-services.json` comes from and goes to. */
export interface GoogleServicesCopy {
  source: string;
  destination: string;
}

/** The files this needs from Node, so tests can use a folder of their own. */
export interface FileAccess {
  exists(path: string): boolean;
  copy(source: string, destination: string): void;
  makeDirectory(path: string): void;
  resolve(...parts: string[]): string;
  dirname(path: string): string;
}

/**
 * Copies `google-services.json` into `android/app/`, where the Google services Gradle plugin
 * reads it. A missing file fails the build here, naming the fix, instead of an app whose
 * `FirebaseMessaging.getInstance().token` never completes.
 */
export function copyGoogleServices(
  files: FileAccess,
  projectRoot: string,
  platformProjectRoot: string,
  options: DropTrackPluginOptions,
  configuredFile: string | undefined,
): GoogleServicesCopy {
  const named = options.googleServicesFile ?? configuredFile;
  if (named === undefined) {
    throw new DropTrackPluginError(
      "no google-services.json: download it from the Firebase console (Project settings › Your apps › Android) and set 'googleServicesFile' in the plugin's options or 'android.googleServicesFile'",
    );
  }
  const source = files.resolve(projectRoot, named);
  if (!files.exists(source)) {
    throw new DropTrackPluginError(
      `googleServicesFile '${named}' is not at ${source}; download it from the Firebase console (Project settings › Your apps › Android) or fix the path (relative to the project root)`,
    );
  }
  const destination = files.resolve(platformProjectRoot, 'app', 'google-services.json');
  files.makeDirectory(files.dirname(destination));
  files.copy(source, destination);
  return { source, destination };
}
