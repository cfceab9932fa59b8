// A look-alike of `@expo/config-types` (expo/expo, packages/@expo/config-types/src/ExpoConfig.ts),
// the package that really exports ExpoConfig. Simplified: only the fields DropTrack's plugin and its
// tests touch; each is typed as ExpoConfig.ts types it. The real IOS and Android interfaces have
// some fifty fields each.
declare module '@expo/config-types' {
  export interface ExpoConfig {
    name: string;
    description?: string;
    slug: string;
    version?: string;
    platforms?: ('android' | 'ios' | 'web')[];
    icon?: string;
    notification?: {
      icon?: string;
      color?: string;
    };
    scheme?: string | string[];
    extra?: {
      [k: string]: any;
    };
    plugins?: (string | [] | [string] | [string, any])[];
    ios?: IOS;
    android?: Android;
    _internal?: {
      pluginHistory?: {
        [k: string]: any;
      };
      [k: string]: any;
    };
  }

  export interface IOS {
    bundleIdentifier?: string;
    buildNumber?: string;
  }

  export interface Android {
    package?: string;
    permissions?: string[];
    blockedPermissions?: string[];
    /** Path to `google-services.json`; Expo's prebuild copies it and applies the Google services plugin. */
    googleServicesFile?: string;
  }
}
