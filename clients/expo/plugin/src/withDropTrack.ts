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
  applyEntitlements,
  applyInfoPlist,
  checkOptions,
  copyGoogleServices,
  type DropTrackPluginOptions,
  type FileAccess,
} from './transforms';

const nodeFiles: FileAccess = {
  exists: (file) => fs.existsSync(file),
  copy: (source, destination) => fs.copyFileSync(source, destination),
  makeDirectory: (directory) => {
    fs.mkdirSync(directory, { recursive: true });
  },
  resolve: (...parts) => path.resolve(...parts),
  dirname: (file) => path.dirname(file),
};

/** Sets up the iOS and Android projects for DropTrack during `expo prebuild`. */
const withDropTrack: ConfigPlugin<DropTrackPluginOptions | void> = (config, props) => {
  const options = checkOptions(props);
  config = withInfoPlist(config, (modConfig) => {
    modConfig.modResults = applyInfoPlist(modConfig.modResults, options);
    return modConfig;
  });
  config = withEntitlementsPlist(config, (modConfig) => {
    modConfig.modResults = applyEntitlements(modConfig.modResults, options);
    return modConfig;
  });
  config = withAndroidManifest(config, (modConfig) => {
    modConfig.modResults = applyAndroidManifest(modConfig.modResults);
    return modConfig;
  });
  return withDangerousMod(config, [
    'android',
    (modConfig) => {
      copyGoogleServices(
        nodeFiles,
        modConfig.modRequest.projectRoot,
        modConfig.modRequest.platformProjectRoot,
        options,
        modConfig.android?.googleServicesFile,
      );
      return modConfig;
    },
  ]);
};

export default createRunOncePlugin(withDropTrack, 'droptrack-expo', '0.9.0');
