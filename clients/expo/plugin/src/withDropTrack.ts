import {
  createRunOncePlugin,
  withAndroidManifest,
  withDangerousMod,
  withEntitlementsPlist,
  withInfoPlist,
  withXcodeProject,
} from '@expo/config-plugins';
import type { ConfigPlugin } from '@expo/config-plugins';
import type { ExpoConfig } from '@expo/config-types';
import * as fs from 'fs';
import * as path from 'path';
import {
  applyAndroidManifest,
  applyGoogleServicesFile,
  checkGoogleServicesFile,
  fcmCoexistence,
  hasExpoNotifications,
} from './android';
import { applyPodfile } from './podfile';
import {
  applyEntitlements,
  applyInfoPlist,
  checkOptions,
  DropTrackPluginError,
  type DropTrackPluginOptions,
} from './transforms';
import { baseName, widgetFiles, widgetNames, widgetTarget, type WidgetTarget } from './widget';
import { addWidgetTarget } from './xcode-target';

/** The app's dependencies, to see whether expo-notifications is among them. */
function projectDependencies(projectRoot: string): Record<string, string> | undefined {
  const file = path.join(projectRoot, 'package.json');
  if (!fs.existsSync(file)) return undefined;
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> };
  return json.dependencies;
}

/**
 * The folder with DropTrack's podspecs: `podsPath`, or the checkout this module is in (found by
 * walking up from this file, which is under clients/expo/build/ in a `file:` install).
 */
export function podsFolder(options: DropTrackPluginOptions, projectRoot: string, from: string = __dirname): string {
  const holds = (folder: string) => fs.existsSync(path.join(folder, 'DropTrackLive.podspec'));
  if (options.podsPath !== undefined) {
    const folder = path.resolve(projectRoot, options.podsPath);
    if (!holds(folder)) {
      throw new DropTrackPluginError(`podsPath '${options.podsPath}' (${folder}) has no DropTrackLive.podspec`);
    }
    return folder;
  }
  for (let folder = from; ; folder = path.dirname(folder)) {
    if (holds(folder)) return folder;
    if (path.dirname(folder) === folder) break;
  }
  throw new DropTrackPluginError(
    "DropTrack's podspecs are not above this module (installed from a package, not a checkout): set podsPath " +
      'to a DropTrack checkout, relative to the project',
  );
}

/** EAS Build reads the app's extensions from the config, to make their signing credentials. */
function declareForEAS(config: ExpoConfig, widget: WidgetTarget): ExpoConfig {
  const extra = config.extra ?? {};
  const eas = extra.eas ?? {};
  const build = eas.build ?? {};
  const experimental = build.experimental ?? {};
  const ios = experimental.ios ?? {};
  const others = (Array.isArray(ios.appExtensions) ? ios.appExtensions : []).filter(
    (extension: { targetName?: string }) => extension.targetName !== widget.name,
  );
  const entitlements = widget.appGroup === undefined ? {} : { 'com.apple.security.application-groups': [widget.appGroup] };
  const declared = { targetName: widget.name, bundleIdentifier: widget.bundleIdentifier, entitlements };
  const appExtensions = [...others, declared];
  const declaredBuild = { ...build, experimental: { ...experimental, ios: { ...ios, appExtensions } } };
  return { ...config, extra: { ...extra, eas: { ...eas, build: declaredBuild } } };
}

/** iOS: the widget extension's folder and target, and the Podfile lines that give it its pods. */
function withWidgetAndPods(config: ExpoConfig, options: DropTrackPluginOptions): ExpoConfig {
  const generated = widgetNames(options) !== undefined;
  if (generated) {
    // Without a bundle id the iOS mods below stop the prebuild, naming it; Android's needs none.
    if (config.ios?.bundleIdentifier !== undefined) config = declareForEAS(config, widgetTarget(config, options)!);
    config = withXcodeProject(config, (modConfig) => {
      addWidgetTarget(modConfig.modResults, widgetTarget(modConfig, options)!, modConfig.modRequest.projectName);
      return modConfig;
    });
  }
  // A dangerous mod: it writes files the Xcode project names, and the Podfile, which has no mod of its own in every SDK.
  return withDangerousMod(config, [
    'ios',
    (modConfig) => {
      const { projectRoot, platformProjectRoot, projectName } = modConfig.modRequest;
      const widget = widgetTarget(modConfig, options);
      if (widget !== undefined) {
        const folder = path.join(platformProjectRoot, widget.name);
        fs.mkdirSync(folder, { recursive: true });
        for (const [name, contents] of Object.entries(widgetFiles(widget))) {
          fs.writeFileSync(path.join(folder, name), contents);
        }
        for (const source of widget.sources ?? []) {
          const from = path.resolve(projectRoot, source);
          if (!fs.existsSync(from)) {
            throw new DropTrackPluginError(`widget.sources names ${source}, which is not at ${from} (paths are relative to the project)`);
          }
          fs.copyFileSync(from, path.join(folder, baseName(source)));
        }
      }
      const podfile = path.join(platformProjectRoot, 'Podfile');
      if (!fs.existsSync(podfile)) throw new DropTrackPluginError(`no Podfile at ${podfile}; run \`expo prebuild --clean\``);
      const plan = {
        appTarget: projectName ?? config.name,
        podsPath: path.relative(platformProjectRoot, podsFolder(options, projectRoot)) || '.',
        ...(widget === undefined ? {} : { widgetTarget: widget.name }),
      };
      fs.writeFileSync(podfile, applyPodfile(fs.readFileSync(podfile, 'utf8'), plan));
      return modConfig;
    },
  ]);
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
  config = withWidgetAndPods(config, options);
  config = withAndroidManifest(config, (modConfig) => {
    const expoNotifications = hasExpoNotifications(modConfig, projectDependencies(modConfig.modRequest.projectRoot));
    modConfig.modResults = applyAndroidManifest(
      modConfig.modResults,
      fcmCoexistence(options, expoNotifications),
      options.brandColor,
    );
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
