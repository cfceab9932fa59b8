// A look-alike of the part of `@expo/config-plugins` DropTrack's plugin uses (expo/expo,
// packages/@expo/config-plugins/src: Plugin.types.ts, plugins/android-plugins.ts,
// plugins/ios-plugins.ts, plugins/withDangerousMod.ts, plugins/withRunOnce.ts, android/Manifest.ts,
// ios/IosConfig.types.ts). Types it imports come from their own packages, as in the real one
// (withXcodeProject's project is the `xcode` package's, types/xcode.d.ts).
// Simplified: the mod config lists only the mods named here; InfoPlist keeps its index signature
// and drops its ~20 named keys; AndroidConfig holds only the Manifest types; ExportedConfig and
// ExportedConfigWithProps are intersections, not interfaces (see below).
declare module '@expo/config-plugins' {
  // The types of other packages are named with import(...), not imported: an import would make
  // them local names of this module, and `import { JSONObject } from '@expo/config-plugins'`
  // would then fail as TS2459 instead of the TS2305 the real package gives.
  type OptionalPromise<T> = Promise<T> | T;

  export interface ModProps<T = any> {
    readonly projectRoot: string;
    readonly platformProjectRoot: string;
    readonly modName: string;
    readonly platform: ModPlatform;
    readonly introspect: boolean;
    readonly projectName?: string;
    readonly ignoreExistingNativeFiles?: boolean;
    nextMod?: Mod<T>;
  }

  // Interfaces extending ExpoConfig in the real package; intersections here, since an interface
  // cannot extend an import(...) type. The members are the same.
  export type ExportedConfig = import('@expo/config-types').ExpoConfig & {
    mods?: ModConfig | null;
  };

  export type ExportedConfigWithProps<Data = any> = ExportedConfig & {
    modResults: Data;
    modRequest: ModProps<Data>;
    readonly modRawConfig: import('@expo/config-types').ExpoConfig;
  };

  export type ConfigPlugin<Props = void> = (config: import('@expo/config-types').ExpoConfig, props: Props) => import('@expo/config-types').ExpoConfig;

  export type StaticPlugin<T = any> = [string | ConfigPlugin<T>, T];

  export type Mod<Props = any> = ((
    config: ExportedConfigWithProps<Props>,
  ) => OptionalPromise<ExportedConfigWithProps<Props>>) & {
    isProvider?: boolean;
    isIntrospective?: boolean;
  };

  export interface ModConfig {
    android?: {
      dangerous?: Mod<unknown>;
      manifest?: Mod<AndroidManifest>;
    };
    ios?: {
      dangerous?: Mod<unknown>;
      infoPlist?: Mod<InfoPlist>;
      entitlements?: Mod<import('@expo/json-file').JSONObject>;
      xcodeproj?: Mod<import('xcode').XcodeProject>;
      podfileProperties?: Mod<Record<string, string>>;
    };
  }

  export type ModPlatform = keyof ModConfig;

  export type InfoPlist = Record<string, import('@expo/json-file').JSONValue | undefined>;

  export type AndroidManifest = AndroidConfig.Manifest.AndroidManifest;

  export namespace AndroidConfig.Manifest {
    type StringBoolean = 'true' | 'false';
    type AndroidManifestAttributes = {
      'android:name': string | 'android.intent.action.VIEW';
      'tools:node'?: string | 'remove';
    };
    type ManifestAction = { $: AndroidManifestAttributes };
    type ManifestCategory = { $: AndroidManifestAttributes };
    type ManifestData = {
      $: {
        [key: string]: string | undefined;
        'android:host'?: string;
        'android:pathPrefix'?: string;
        'android:scheme'?: string;
      };
    };
    export type ManifestIntentFilter = {
      $?: {
        'android:autoVerify'?: StringBoolean;
        'data-generated'?: StringBoolean;
      };
      action?: ManifestAction[];
      data?: ManifestData[];
      category?: ManifestCategory[];
    };
    export type ManifestMetaData = {
      $: AndroidManifestAttributes & { 'android:value'?: string; 'android:resource'?: string };
    };
    type ManifestServiceAttributes = AndroidManifestAttributes & {
      'android:enabled'?: StringBoolean;
      'android:exported'?: StringBoolean;
      'android:permission'?: string;
    };
    type ManifestService = {
      $: ManifestServiceAttributes;
      'intent-filter'?: ManifestIntentFilter[];
    };
    type ManifestApplicationAttributes = {
      'android:name': string | '.MainApplication';
      'android:icon'?: string;
      'android:label'?: string;
      [key: string]: string | undefined;
    };
    export type ManifestApplication = {
      $: ManifestApplicationAttributes;
      service?: ManifestService[];
      'meta-data'?: ManifestMetaData[];
    };
    export type ManifestUsesPermission = { $: AndroidManifestAttributes };
    export type ManifestQuery = {
      package: { $: { 'android:name': string } }[];
    };
    export type AndroidManifest = {
      manifest: {
        $: {
          'xmlns:android': string;
          'xmlns:tools'?: string;
          package?: string;
          [key: string]: string | undefined;
        };
        'uses-permission'?: ManifestUsesPermission[];
        queries: ManifestQuery[];
        application?: ManifestApplication[];
      };
    };
  }

  export const withAndroidManifest: ConfigPlugin<Mod<AndroidManifest>>;
  export const withInfoPlist: ConfigPlugin<Mod<InfoPlist>>;
  export const withEntitlementsPlist: ConfigPlugin<Mod<import('@expo/json-file').JSONObject>>;
  export const withXcodeProject: ConfigPlugin<Mod<import('xcode').XcodeProject>>;
  export const withDangerousMod: ConfigPlugin<[ModPlatform, Mod<unknown>]>;
  export function createRunOncePlugin<T>(plugin: ConfigPlugin<T>, name: string, version?: string): ConfigPlugin<T>;
}
