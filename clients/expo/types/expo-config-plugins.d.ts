// A look-alike of the part of `@expo/config-plugins` (and `@expo/config-types`) this module's
// plugin uses, written from Expo's documentation and published declarations (SDK 52+).
declare module '@expo/config-plugins' {
  export type JSONValue = boolean | number | string | null | JSONValue[] | { [key: string]: JSONValue | undefined };
  export type JSONObject = { [key: string]: JSONValue | undefined };

  /** The app config (app.json's `expo` object); only the fields the plugin reads. */
  export interface ExpoConfig {
    name: string;
    slug: string;
    ios?: { bundleIdentifier?: string; entitlements?: Record<string, any>; infoPlist?: Record<string, any> };
    android?: { package?: string; googleServicesFile?: string };
    [key: string]: any;
  }

  export type ModPlatform = 'ios' | 'android' | string;

  export interface ModProps<T = any> {
    readonly projectRoot: string;
    readonly platformProjectRoot: string;
    readonly modName: string;
    readonly platform: ModPlatform;
    readonly introspect: boolean;
    readonly projectName?: string;
    nextMod?: Mod<T>;
  }

  export type ExportedConfigWithProps<Data = any> = ExpoConfig & {
    modResults: Data;
    modRequest: ModProps<Data>;
    readonly modRawConfig: ExpoConfig;
  };

  export type Mod<Props = any> = (
    config: ExportedConfigWithProps<Props>,
  ) => Promise<ExportedConfigWithProps<Props>> | ExportedConfigWithProps<Props>;

  export type ConfigPlugin<Props = void> = (config: ExpoConfig, props: Props) => ExpoConfig;

  export type InfoPlist = Record<string, JSONValue | undefined>;

  export interface ManifestUsesPermission {
    $: { 'android:name': string; [key: string]: string | undefined };
  }
  export interface AndroidManifest {
    manifest: {
      $: { [key: string]: string | undefined };
      'uses-permission'?: ManifestUsesPermission[];
      [key: string]: any;
    };
  }

  export const withInfoPlist: ConfigPlugin<Mod<InfoPlist>>;
  export const withEntitlementsPlist: ConfigPlugin<Mod<JSONObject>>;
  export const withAndroidManifest: ConfigPlugin<Mod<AndroidManifest>>;
  export const withDangerousMod: ConfigPlugin<[ModPlatform, Mod<unknown>]>;
  export function createRunOncePlugin<PluginProps>(
    plugin: ConfigPlugin<PluginProps>,
    name: string,
    version?: string,
  ): ConfigPlugin<PluginProps>;
}
