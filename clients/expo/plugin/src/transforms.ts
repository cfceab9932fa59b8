// The plugin's options and its changes to the iOS project, as plain functions over plain values,
// so they are tested without Expo's prebuild (`android.ts` holds the Android ones). Each type comes
// from the package that exports it: JSONObject from @expo/json-file, InfoPlist from
// @expo/config-plugins.
import type { InfoPlist } from '@expo/config-plugins';
import type { JSONObject } from '@expo/json-file';

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
  /**
   * Which FirebaseMessagingService receives FCM, when expo-notifications is in the app too (Android
   * starts one per app). `droptrack` (the default): DropTrack's, which passes every message and
   * token that is not DropTrack's on to expo-notifications. `expo-notifications`: expo-notifications'
   * alone; DropTrack's service is removed and Live Updates pushed while the app is closed are not
   * shown (an opt-out for apps whose own code forwards DropTrack's messages).
   */
  fcmReceiver?: 'droptrack' | 'expo-notifications';
  /**
   * The Live Activity's widget extension, generated at prebuild: a target (default
   * `DropTrackWidgetExtension`) whose bundle id is the app's plus `.<bundleIdSuffix>` (default
   * `widgets`), listing DropTrackWidgets' `DeliveryLiveActivity`. `sources`: Swift files of your
   * own (relative to the project; one holds the `@main` WidgetBundle) compiled instead of the
   * generated bundle. `false`: you add the extension.
   */
  widget?: false | { targetName?: string; bundleIdSuffix?: string; sources?: string[] };
  /**
   * The folder holding DropTrack's podspecs (DropTrackLive.podspec and the others), relative to the
   * project. Default: the DropTrack checkout this module is in (`file:` install).
   */
  podsPath?: string;
  /**
   * The delivery card's brand colour, `#RRGGBB`, on both phones: the widget extension's
   * `DropTrackBrandColor` (its lit segments, button and keyline) and the Android manifest's
   * `com.droptrack.android.BRAND_COLOR` meta-data (the card and its bar). Default: DropTrack's
   * orange, `#FF5A1F` (`vectors/brand.json`).
   */
  brandColor?: string;
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
  const receiver = checked.fcmReceiver;
  if (receiver !== undefined && receiver !== 'droptrack' && receiver !== 'expo-notifications') {
    throw new DropTrackPluginError(
      `fcmReceiver is '${String(receiver)}'; use 'droptrack' (DropTrack's service forwards the rest) or 'expo-notifications'`,
    );
  }
  const widget = checked.widget;
  if (widget !== undefined && widget !== false && (typeof widget !== 'object' || widget === null)) {
    throw new DropTrackPluginError(
      `widget is ${JSON.stringify(widget)}; use false, or { "targetName": …, "bundleIdSuffix": … } (both optional)`,
    );
  }
  if (checked.podsPath !== undefined && (typeof checked.podsPath !== 'string' || checked.podsPath === '')) {
    throw new DropTrackPluginError(`podsPath must be a folder holding DropTrack's podspecs, relative to the project`);
  }
  if (checked.brandColor !== undefined && (typeof checked.brandColor !== 'string' || !/^#[0-9A-Fa-f]{6}$/.test(checked.brandColor))) {
    throw new DropTrackPluginError(
      `brandColor is ${JSON.stringify(checked.brandColor)}; use #RRGGBB (e.g. "#0A84FF"), or leave it out for DropTrack's orange`,
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
