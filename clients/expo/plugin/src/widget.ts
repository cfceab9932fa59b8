// The Live Activity's widget extension, generated at prebuild: what it is called and the files in
// its folder (ios/<target>/). Without an extension that lists DropTrackWidgets' `DeliveryLiveActivity`,
// iOS accepts every start and shows nothing (DT-072). `xcode-target.ts` adds the target to the
// project and `podfile.ts` gives it the DropTrackWidgets and DropTrackContract pods.
import type { ExpoConfig } from '@expo/config-types';
import { DropTrackPluginError, type DropTrackPluginOptions } from './transforms';

/** The default target (and folder, and Swift module) name; not `DropTrackWidgets`, the pod's module. */
export const defaultWidgetTargetName = 'DropTrackWidgetExtension';
/** The default last part of the extension's bundle id, after the app's. */
export const defaultWidgetBundleIdSuffix = 'widgets';

/** What the generated extension is, read from app.json and the plugin's options. */
export interface WidgetTarget {
  /** The target, its folder under ios/ and its product (`<name>.appex`). */
  name: string;
  /** `<app bundle id>.<suffix>`: Apple requires an extension's id to extend its app's. */
  bundleIdentifier: string;
  /** The name shown for the widget in Settings. */
  displayName: string;
  /** CFBundleShortVersionString and CFBundleVersion: App Store Connect wants the app's. */
  version: string;
  buildNumber: string;
  /** The App Group the app and the extension share, when the app has one. */
  appGroup?: string;
  /** The team's own Swift files (relative to the project), compiled instead of the generated bundle. */
  sources?: string[];
  /** The brand colour (`#RRGGBB`) the widget reads from its Info.plist's `DropTrackBrandColor`. */
  brandColor?: string;
}

/** The module names a target of the app must not take: `import DropTrackWidgets` would find the target. */
const takenNames = ['DropTrackWidgets', 'DropTrackContract', 'DropTrackLive', 'DropTrackSHA256', 'DropTrackExpo'];

/** The target name and bundle id suffix the options ask for, or undefined for `widget: false`. */
export function widgetNames(options: DropTrackPluginOptions): { name: string; suffix: string } | undefined {
  if (options.widget === false) return undefined;
  const name = options.widget?.targetName ?? defaultWidgetTargetName;
  const suffix = options.widget?.bundleIdSuffix ?? defaultWidgetBundleIdSuffix;
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name) || takenNames.includes(name)) {
    throw new DropTrackPluginError(
      `widget.targetName '${name}' must be letters, digits and '_' and not one of ${takenNames.join(', ')}; ` +
        `the default is '${defaultWidgetTargetName}'`,
    );
  }
  if (!/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(suffix)) {
    throw new DropTrackPluginError(
      `widget.bundleIdSuffix '${suffix}' must be letters, digits, '-' and '.' (it is appended to ios.bundleIdentifier)`,
    );
  }
  const sources = options.widget?.sources;
  if (sources !== undefined) {
    const names = Array.isArray(sources) ? sources.map((source) => (typeof source === 'string' ? baseName(source) : '')) : [];
    if (names.length === 0 || names.some((base) => !/^[^/\\]+\.swift$/.test(base)) || new Set(names).size < names.length) {
      throw new DropTrackPluginError(
        `widget.sources must list Swift files (relative to the project) with distinct names, one holding ` +
          `the @main WidgetBundle; got ${JSON.stringify(sources)}`,
      );
    }
  }
  return { name, suffix };
}

/** A file's name without its folder (the extension's folder is flat). */
export function baseName(file: string): string {
  return file.split(/[/\\]/).pop() ?? file;
}

/**
 * The widget the options ask for, or undefined for `widget: false`. Refuses what would not build;
 * called from the iOS mods, so an Android-only prebuild needs no iOS bundle id.
 */
export function widgetTarget(config: ExpoConfig, options: DropTrackPluginOptions): WidgetTarget | undefined {
  const names = widgetNames(options);
  if (names === undefined) return undefined;
  const { name, suffix } = names;
  const app = config.ios?.bundleIdentifier;
  if (app === undefined || app === '') {
    throw new DropTrackPluginError(
      "ios.bundleIdentifier is not set: the widget extension's bundle id extends it; set it in app.json, " +
        'or `"widget": false` to add the extension yourself',
    );
  }
  const target: WidgetTarget = {
    name,
    bundleIdentifier: `${app}.${suffix}`,
    displayName: config.name,
    version: config.version ?? '1.0.0',
    buildNumber: config.ios?.buildNumber ?? '1',
  };
  if (options.appGroup !== undefined) target.appGroup = options.appGroup;
  const sources = options.widget === false ? undefined : options.widget?.sources;
  if (sources !== undefined) target.sources = sources;
  if (options.brandColor !== undefined) target.brandColor = options.brandColor;
  return target;
}

function xmlEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function plist(body: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
    `<plist version="1.0">\n<dict>\n${body}</dict>\n</plist>\n`
  );
}

const entry = (key: string, value: string) => `\t<key>${key}</key>\n\t<string>${xmlEscaped(value)}</string>\n`;

/** The extension's Info.plist: a WidgetKit extension (the point identifier is what makes it one). */
export function widgetInfoPlist(target: WidgetTarget): string {
  return plist(
    entry('CFBundleDevelopmentRegion', '$(DEVELOPMENT_LANGUAGE)') +
      entry('CFBundleDisplayName', target.displayName) +
      entry('CFBundleExecutable', '$(EXECUTABLE_NAME)') +
      entry('CFBundleIdentifier', '$(PRODUCT_BUNDLE_IDENTIFIER)') +
      entry('CFBundleInfoDictionaryVersion', '6.0') +
      entry('CFBundleName', '$(PRODUCT_NAME)') +
      entry('CFBundlePackageType', '$(PRODUCT_BUNDLE_PACKAGE_TYPE)') +
      entry('CFBundleShortVersionString', target.version) +
      entry('CFBundleVersion', target.buildNumber) +
      (target.brandColor === undefined ? '' : entry('DropTrackBrandColor', target.brandColor)) +
      '\t<key>NSExtension</key>\n\t<dict>\n\t\t<key>NSExtensionPointIdentifier</key>\n' +
      '\t\t<string>com.apple.widgetkit-extension</string>\n\t</dict>\n',
  );
}

/** The extension's entitlements: the App Group, so it reads what the app shares. */
export function widgetEntitlements(target: WidgetTarget): string {
  if (target.appGroup === undefined) return plist('');
  return plist(
    '\t<key>com.apple.security.application-groups</key>\n' +
      `\t<array>\n\t\t<string>${xmlEscaped(target.appGroup)}</string>\n\t</array>\n`,
  );
}

/** The name of the generated Swift file, which holds the extension's entry point. */
export const widgetBundleSource = 'DropTrackWidgetBundle.swift';

/**
 * The extension's entry point: a `WidgetBundle` listing DropTrack's Live Activity. The view is
 * DropTrackWidgets'; a team that wants its own lists its widget here instead (see the README).
 */
export function widgetBundleSwift(target: WidgetTarget): string {
  return `// Generated by droptrack-expo's config plugin at \`expo prebuild\` (the ${target.name} target).
// Edits are lost at the next \`expo prebuild --clean\`: set \`"widget": false\` in the plugin's options
// to keep an extension of your own.
import DropTrackWidgets
import SwiftUI
import WidgetKit

@main
struct DropTrackWidgetBundle: WidgetBundle {
    var body: some Widget {
        // DeliveryLiveActivity draws DeliveryAttributes (DropTrackContract), the type the app's
        // DropTrackExpo starts, from the same pod: one copy of the contract, so the two cannot drift.
        if #available(iOS 16.2, *) {
            DeliveryLiveActivity()
        }
    }
}
`;
}

/** The Swift files the extension compiles, by their names in its folder. */
export function widgetSwiftFiles(target: WidgetTarget): string[] {
  return target.sources === undefined ? [widgetBundleSource] : target.sources.map(baseName);
}

/**
 * Every file the plugin writes into the extension's folder, by name. The team's own sources are
 * copied there by the prebuild (they are on disk, read when it runs), so they are not among them.
 */
export function widgetFiles(target: WidgetTarget): Record<string, string> {
  const files: Record<string, string> = {
    'Info.plist': widgetInfoPlist(target),
    [`${target.name}.entitlements`]: widgetEntitlements(target),
  };
  if (target.sources === undefined) files[widgetBundleSource] = widgetBundleSwift(target);
  return files;
}
