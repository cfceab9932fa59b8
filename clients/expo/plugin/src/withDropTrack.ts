import {
  createRunOncePlugin,
  withAndroidManifest,
  withDangerousMod,
  withEntitlementsPlist,
  withInfoPlist,
} from '@expo/config-plugins';
import type { ConfigPlugin } from '@expo/config-plugins';
import * as fs from 'fs';
import * as path from 'path';
import {
  applyAndroidManifest,
  applyGoogleServicesFile,
  checkGoogleServicesFile,
  fcmCoexistence,
  hasExpoNotifications,
} from './android';
import { applyEntitlements, applyInfoPlist, checkOptions, type DropTrackPluginOptions } from './transforms';

/** The app's dependencies, to see whether expo-notifications is among them. */
function projectDependencies(projectRoot: string): Record<string, string> | undefined {
  const file = path.join(projectRoot, 'package.json');
  if (!fs.existsSync(file)) return undefined;
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> };
  return json.dependencies;
}

/**
 * Sets up the iOS and Android projects for DropTrack during `expo prebuild`. It leaves the iOS
 * deployment target alone: the module builds at Expo's default (15.1) and answers
 * `isSupported() === false` below iOS 16.2, where ActivityKit's push updates begin.
 */
const withDropTrack: ConfigPlugin<DropTrackPluginOptions | void> = (config, props) => {
  const options = checkOptions(props);
  config = applyGoogleServicesFile(config, options);
  config = withInfoPlist(config, (modConfig) => {
    modConfig.modResults = applyInfoPlist(modConfig.modResults, options);
    return modConfig;
  });
  config = withEntitlementsPlist(config, (modConfig) => {
    modConfig.modResults = applyEntitlements(modConfig.modResults, options);
    return modConfig;
  });
  config = withAndroidManifest(config, (modConfig) => {
    const expoNotifications = hasExpoNotifications(modConfig, projectDependencies(modConfig.modRequest.projectRoot));
    modConfig.modResults = applyAndroidManifest(modConfig.modResults, fcmCoexistence(options, expoNotifications));
    return modConfig;
  });
  // Only checks the file is there (Expo's own steps copy it); a dangerous mod because it reads the disk.
  return withDangerousMod(config, [
    'android',
    (modConfig) => {
      const named = modConfig.android?.googleServicesFile;
      if (named !== undefined) {
        checkGoogleServicesFile(fs.existsSync, path.resolve, modConfig.modRequest.projectRoot, named);
      }
      return modConfig;
    },
  ]);
};

export default createRunOncePlugin(withDropTrack, 'droptrack-expo', '0.9.0');
