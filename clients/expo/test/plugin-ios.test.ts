// The config plugin's iOS output on the example app's app.json and sample Expo projects (ios/ with
// a HelloWorld.xcodeproj and Expo's Podfile): test/fixtures/ios in the layout of Expo's templates
// up to SDK 54 (groups of files, objectVersion 54), test/fixtures/ios-xcode26 in Xcode 26's
// (a folder synchronized with the disk, objectVersion 77, no team, the app above the project's
// deployment target). The mods run as prebuild runs them, against the files, twice (a prebuild
// without --clean runs them on their own output). With DROPTRACK_PREBUILD_OUT set, each layout's
// project is made in <out>/<layout> and left there for test.sh's other readers:
// mod-pbxproj (tools/check_xcode_project.py), Ruby (tools/check_podfile.rb) and swiftc.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ExpoConfig } from '@expo/config-types';
import type { PBXDictionary, PBXObject, PBXProjectHash, PBXValue } from 'xcode';
import withDropTrack, { podsFolder } from '../plugin/src/withDropTrack';
import { applyPodfile } from '../plugin/src/podfile';
import { widgetFiles, widgetTarget } from '../plugin/src/widget';
import { unquoted } from '../plugin/src/xcode-target';
import { openProject } from './pbxproj';
import { repositoryRoot } from './support';

type Recorded = ExpoConfig & { mods: { name: string; mod: (config: any) => any }[] };
const fixturesOf = (layout: string) => path.join(repositoryRoot, 'clients', 'expo', 'test', 'fixtures', layout);
const fixtures = fixturesOf('ios');
const exampleApp = (): ExpoConfig =>
  JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'examples', 'expo-delivery', 'app.json'), 'utf8')).expo;

/** A fresh Expo project: the sample ios/ folder of a layout, in `at` or a temporary folder. */
function project(at?: string, layout = 'ios'): string {
  if (at !== undefined) fs.rmSync(at, { recursive: true, force: true });
  const root = at ?? fs.mkdtempSync(path.join(os.tmpdir(), 'droptrack-prebuild-'));
  fs.mkdirSync(path.join(root, 'ios', 'HelloWorld.xcodeproj'), { recursive: true });
  for (const file of ['Podfile', 'HelloWorld.xcodeproj/project.pbxproj']) {
    fs.copyFileSync(path.join(fixturesOf(layout), file), path.join(root, 'ios', file));
  }
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ dependencies: { expo: '54.0.0' } }));
  fs.writeFileSync(path.join(root, 'google-services.json'), '{"project_info":{}}');
  return root;
}

/** Runs the plugin's iOS mods on the project's files, dangerous ones first, as prebuild does. */
async function prebuild(root: string, config: ExpoConfig, options: unknown): Promise<Recorded> {
  const applied = withDropTrack(config, options as never) as Recorded;
  const modRequest = { projectRoot: root, platformProjectRoot: path.join(root, 'ios'), projectName: 'HelloWorld', introspect: false };
  const ios = applied.mods.filter((entry) => entry.name.startsWith('ios.'));
  const ordered = [...ios.filter((entry) => entry.name === 'ios.dangerous'), ...ios.filter((entry) => entry.name !== 'ios.dangerous')];
  for (const { name, mod } of ordered) {
    if (name === 'ios.xcodeproj') {
      const xcode = openProject(path.join(root, 'ios', 'HelloWorld.xcodeproj', 'project.pbxproj'));
      await mod({ ...applied, modResults: xcode, modRequest: { ...modRequest, modName: 'xcodeproj', platform: 'ios' } });
      xcode.save();
    } else {
      await mod({ ...applied, modResults: {}, modRequest: { ...modRequest, modName: name, platform: 'ios' } });
    }
  }
  return applied;
}

function objects(hash: PBXProjectHash, isa: string): [string, PBXObject][] {
  return Object.entries(hash.project.objects[isa] ?? {}).filter((pair): pair is [string, PBXObject] => typeof pair[1] === 'object');
}

function byId(hash: PBXProjectHash, isa: string, id: PBXValue | undefined): PBXObject {
  const found = objects(hash, isa).find(([key]) => key === unquoted(id as string));
  assert.ok(found, `no ${isa} ${String(id)}`);
  return found[1];
}

const idsOf = (list: PBXValue | undefined): string[] =>
  (list as { value: string }[]).map((item) => (typeof item === 'string' ? item : item.value));

function settingsOf(hash: PBXProjectHash, target: PBXObject): Record<string, PBXDictionary> {
  const list = byId(hash, 'XCConfigurationList', target.buildConfigurationList);
  return Object.fromEntries(
    idsOf(list.buildConfigurations).map((id) => {
      const configuration = byId(hash, 'XCBuildConfiguration', id);
      return [unquoted(configuration.name)!, configuration.buildSettings as PBXDictionary];
    }),
  );
}

for (const layout of ['ios', 'ios-xcode26']) {
  test(`prebuild generates the widget extension: its folder, its target, embedded in the app that depends on it (${layout})`, async () => {
    const out = process.env.DROPTRACK_PREBUILD_OUT;
    const kept = out === undefined ? undefined : path.join(out, layout);
    const root = project(kept, layout);
    try {
      const config = exampleApp();
      const [, options] = (config.plugins as [string, unknown][]).find(([name]) => name === 'droptrack-expo')!;
      await prebuild(root, config, options);
      const folder = path.join(root, 'ios', 'DropTrackWidgetExtension');
      assert.deepEqual(fs.readdirSync(folder).sort(), [
        'DropTrackWidgetBundle.swift',
        'DropTrackWidgetExtension.entitlements',
        'Info.plist',
      ]);
      const info = fs.readFileSync(path.join(folder, 'Info.plist'), 'utf8');
      assert.match(info, /<key>NSExtensionPointIdentifier<\/key>\s*<string>com\.apple\.widgetkit-extension<\/string>/);
      assert.match(info, /<key>CFBundleShortVersionString<\/key>\s*<string>1\.0\.0<\/string>/);
      assert.match(
        fs.readFileSync(path.join(folder, 'DropTrackWidgetExtension.entitlements'), 'utf8'),
        /<key>com\.apple\.security\.application-groups<\/key>\s*<array>\s*<string>group\.com\.example\.droptrack\.delivery<\/string>/,
      );
      const swift = fs.readFileSync(path.join(folder, 'DropTrackWidgetBundle.swift'), 'utf8');
      assert.match(swift, /@main\s+struct DropTrackWidgetBundle: WidgetBundle/);
      assert.match(swift, /if #available\(iOS 16\.2, \*\) \{\s*DeliveryLiveActivity\(\)/);

      const xcode = openProject(path.join(root, 'ios', 'HelloWorld.xcodeproj', 'project.pbxproj'));
      const hash = xcode.hash;
      const targets = objects(hash, 'PBXNativeTarget');
      const [extensionId, extension] = targets.find(([, target]) => unquoted(target.name) === 'DropTrackWidgetExtension')!;
      assert.equal(unquoted(extension.productType), 'com.apple.product-type.app-extension');
      const root_ = byId(hash, 'PBXProject', hash.project.rootObject);
      assert.deepEqual(idsOf(root_.targets), [targets[0]![0], extensionId]);

      // Its phases: the generated Swift file compiled; Frameworks and Resources for the pods.
      const phases = idsOf(extension.buildPhases).map((id) => {
        const [isa, phase] = ['PBXSourcesBuildPhase', 'PBXFrameworksBuildPhase', 'PBXResourcesBuildPhase']
          .map((kind) => [kind, objects(hash, kind).find(([key]) => key === id)?.[1]] as const)
          .find(([, found]) => found !== undefined)!;
        return { isa, files: idsOf(phase!.files).map((file) => byId(hash, 'PBXBuildFile', file)) };
      });
      assert.deepEqual(phases.map((phase) => phase.isa), ['PBXSourcesBuildPhase', 'PBXFrameworksBuildPhase', 'PBXResourcesBuildPhase']);
      const source = byId(hash, 'PBXFileReference', phases[0]!.files[0]!.fileRef);
      assert.equal(unquoted(source.path), 'DropTrackWidgetBundle.swift');
      assert.equal(source.lastKnownFileType, 'sourcecode.swift');

      // Debug and Release: the bundle id under the app's, the app's deployment target and team (if any).
      const app = targets[0]![1];
      const settings = settingsOf(hash, extension);
      const appSettings = settingsOf(hash, app);
      assert.deepEqual(Object.keys(settings), ['Debug', 'Release']);
      for (const [name, configuration] of Object.entries(settings)) {
        assert.equal(unquoted(configuration.PRODUCT_BUNDLE_IDENTIFIER), 'com.example.droptrack.delivery.widgets');
        assert.equal(unquoted(configuration.INFOPLIST_FILE), 'DropTrackWidgetExtension/Info.plist');
        assert.equal(unquoted(configuration.CODE_SIGN_ENTITLEMENTS), 'DropTrackWidgetExtension/DropTrackWidgetExtension.entitlements');
        assert.equal(unquoted(configuration.IPHONEOS_DEPLOYMENT_TARGET), layout === 'ios' ? '15.1' : '16.4');
        assert.equal(unquoted(configuration.DEVELOPMENT_TEAM), layout === 'ios' ? 'ABCDE12345' : undefined);
        assert.equal(configuration.DEVELOPMENT_TEAM, appSettings[name]!.DEVELOPMENT_TEAM);
        assert.equal(unquoted(configuration.PRODUCT_NAME), '$(TARGET_NAME)');
      }

      // The app copies the .appex into PlugIns/ (dstSubfolderSpec 13) and builds the extension first.
      const embed = idsOf(app.buildPhases)
        .map((id) => objects(hash, 'PBXCopyFilesBuildPhase').find(([key]) => key === id)?.[1])
        .find((phase) => phase !== undefined)!;
      assert.equal(embed.dstSubfolderSpec, 13);
      const embedded = byId(hash, 'PBXFileReference', byId(hash, 'PBXBuildFile', idsOf(embed.files)[0]).fileRef);
      assert.equal(embedded.explicitFileType, '"wrapper.app-extension"');
      assert.equal(extension.productReference, objects(hash, 'PBXFileReference').find(([, file]) => file === embedded)![0]);
      const dependency = byId(hash, 'PBXTargetDependency', idsOf(app.dependencies)[0]);
      assert.equal(dependency.target, extensionId);
      const proxy = byId(hash, 'PBXContainerItemProxy', dependency.targetProxy);
      assert.deepEqual([proxy.containerPortal, proxy.proxyType, proxy.remoteGlobalIDString], [hash.project.rootObject, 1, extensionId]);

      // The group under the main group names the folder's three files.
      const main = byId(hash, 'PBXGroup', root_.mainGroup);
      const groups = objects(hash, 'PBXGroup').filter(([id]) => idsOf(main.children).includes(id));
      const group = groups.map(([, child]) => child).find((child) => unquoted(child.path) === 'DropTrackWidgetExtension')!;
      assert.deepEqual(
        idsOf(group.children).map((id) => unquoted(byId(hash, 'PBXFileReference', id).path)),
        ['DropTrackWidgetBundle.swift', 'Info.plist', 'DropTrackWidgetExtension.entitlements'],
      );

      // A second prebuild (no --clean) changes nothing: one target, one embed, the Podfile's blocks once.
      const before = fs.readFileSync(path.join(root, 'ios', 'HelloWorld.xcodeproj', 'project.pbxproj'), 'utf8');
      const podfile = fs.readFileSync(path.join(root, 'ios', 'Podfile'), 'utf8');
      await prebuild(root, config, options);
      assert.equal(fs.readFileSync(path.join(root, 'ios', 'HelloWorld.xcodeproj', 'project.pbxproj'), 'utf8'), before);
      assert.equal(fs.readFileSync(path.join(root, 'ios', 'Podfile'), 'utf8'), podfile);
    } finally {
      if (kept === undefined) fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

test("the Podfile names DropTrack's pods by path: DropTrackExpo's in the app's target, the widget's in its own", () => {
  const podfile = fs.readFileSync(path.join(fixtures, 'Podfile'), 'utf8');
  const applied = applyPodfile(podfile, { appTarget: 'HelloWorld', widgetTarget: 'DropTrackWidgetExtension', podsPath: '../../droptrack' });
  const lines = applied.split('\n');
  const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
  // In the app's target, right after use_expo_modules!, which autolinks DropTrackExpo.
  assert.equal(at(/pod 'DropTrackSHA256', :path => '\.\.\/\.\.\/droptrack'/), at(/^\s*use_expo_modules!/) + 2);
  for (const pod of ['DropTrackSHA256', 'DropTrackContract', 'DropTrackLive']) {
    assert.ok(at(new RegExp(`^  pod '${pod}', :path => `)) > at(/^target 'HelloWorld' do/));
  }
  // The extension's target at the top level, after the app's `end`, so React Native's pods stay out.
  const widget = at(/^target 'DropTrackWidgetExtension' do$/);
  assert.ok(widget > lines.findIndex((line, index) => index > at(/^target 'HelloWorld' do/) && line === 'end'));
  assert.deepEqual(lines.slice(widget + 1, widget + 6), [
    "  pod 'DropTrackSHA256', :path => '../../droptrack'",
    "  pod 'DropTrackContract', :path => '../../droptrack'",
    "  pod 'DropTrackLive', :path => '../../droptrack'",
    "  pod 'DropTrackWidgets', :path => '../../droptrack'",
    'end',
  ]);
  assert.equal(applyPodfile(applied, { appTarget: 'HelloWorld', widgetTarget: 'DropTrackWidgetExtension', podsPath: '../../droptrack' }), applied);
  // Without the widget: only the app's pods; a Podfile without the app's target is refused with the lines to add.
  assert.doesNotMatch(applyPodfile(podfile, { appTarget: 'HelloWorld', podsPath: '.' }), /DropTrackWidgets/);
  assert.throws(() => applyPodfile(podfile, { appTarget: 'Shop', podsPath: '.' }), /no `target 'Shop' do`; add pod 'DropTrackSHA256'/);
});

test("the pods' folder is the checkout the module is in, or podsPath; a folder without the podspecs is refused", () => {
  assert.equal(podsFolder({}, '/nowhere', path.join(repositoryRoot, 'clients', 'expo', 'build', 'plugin', 'src')), repositoryRoot);
  assert.equal(podsFolder({ podsPath: '..' }, path.join(repositoryRoot, 'examples')), repositoryRoot);
  assert.throws(() => podsFolder({ podsPath: 'vendor' }, repositoryRoot), /podsPath 'vendor' .* has no DropTrackLive\.podspec/);
  assert.throws(() => podsFolder({}, '/', os.tmpdir()), /set podsPath to a DropTrack checkout/);
});

test('the widget options are checked, the bundle id is required by the iOS mods only, and EAS learns of the extension', async () => {
  const android = { googleServicesFile: './google-services.json' };
  const config: ExpoConfig = { name: 'Shop', slug: 'shop', ios: { bundleIdentifier: 'com.example.shop' }, android };
  assert.throws(() => withDropTrack(config, { widget: { targetName: 'DropTrackWidgets' } }), /not one of DropTrackWidgets/);
  assert.throws(() => withDropTrack(config, { widget: { bundleIdSuffix: 'a b' } }), /widget\.bundleIdSuffix 'a b'/);
  assert.throws(() => withDropTrack(config, { widget: 'yes' as never }), /widget is "yes"/);
  const applied = withDropTrack(config, { appGroup: 'group.com.example.shop', widget: { targetName: 'ShopWidgets', bundleIdSuffix: 'live' } });
  assert.deepEqual(applied.extra?.eas.build.experimental.ios.appExtensions, [
    {
      targetName: 'ShopWidgets',
      bundleIdentifier: 'com.example.shop.live',
      entitlements: { 'com.apple.security.application-groups': ['group.com.example.shop'] },
    },
  ]);
  // `widget: false`: no target, no extension for EAS, the app's pods still in the Podfile.
  const without = withDropTrack(config, { widget: false }) as Recorded;
  assert.equal(without.mods.some((entry) => entry.name === 'ios.xcodeproj'), false);
  assert.equal(without.extra, undefined);
  // No bundle id: the plugin applies (an Android-only prebuild needs none), the iOS mods refuse.
  const root = project();
  try {
    await assert.rejects(prebuild(root, { name: 'Shop', slug: 'shop', android }, {}), /ios\.bundleIdentifier is not set/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("brandColor reaches the widget extension's Info.plist as DropTrackBrandColor, which DropTrackWidgets reads", () => {
  const config: ExpoConfig = { name: 'Shop', slug: 'shop', ios: { bundleIdentifier: 'com.example.shop' } };
  const own = widgetFiles(widgetTarget(config, { brandColor: '#0A84FF' })!)['Info.plist'];
  assert.match(own, /<key>DropTrackBrandColor<\/key>\n\t<string>#0A84FF<\/string>/);
  // Left out, the widget draws with DropTrack's default (DeliveryBrand.defaultColor).
  assert.doesNotMatch(widgetFiles(widgetTarget(config, {})!)['Info.plist'], /DropTrackBrandColor/);
  const swift = fs.readFileSync(path.join(repositoryRoot, 'Sources/DropTrackContract/DeliveryBrand.swift'), 'utf8');
  assert.match(swift, /infoPlistKey = "DropTrackBrandColor"/);
});

test("widget.sources: the team's own Swift files are copied and compiled instead of the generated bundle", async () => {
  const root = project();
  try {
    const config = exampleApp();
    fs.mkdirSync(path.join(root, 'widgets'));
    const bundle = '@main\nstruct ShopWidgets: WidgetBundle {\n    var body: some Widget { ShopCard() }\n}\n';
    fs.writeFileSync(path.join(root, 'widgets', 'ShopWidgets.swift'), bundle);
    fs.writeFileSync(path.join(root, 'widgets', 'ShopCard.swift'), 'struct ShopCard: Widget {}\n');
    const sources = ['widgets/ShopWidgets.swift', './widgets/ShopCard.swift'];
    const options = { appGroup: 'group.com.example.droptrack.delivery', googleServicesFile: './google-services.json' };
    await prebuild(root, config, { ...options, widget: { sources } });
    const folder = path.join(root, 'ios', 'DropTrackWidgetExtension');
    assert.deepEqual(fs.readdirSync(folder).sort(), ['DropTrackWidgetExtension.entitlements', 'Info.plist', 'ShopCard.swift', 'ShopWidgets.swift']);
    assert.equal(fs.readFileSync(path.join(folder, 'ShopWidgets.swift'), 'utf8'), bundle);
    const hash = openProject(path.join(root, 'ios', 'HelloWorld.xcodeproj', 'project.pbxproj')).hash;
    const extension = objects(hash, 'PBXNativeTarget').find(([, target]) => unquoted(target.name) === 'DropTrackWidgetExtension')![1];
    const sourcesPhase = byId(hash, 'PBXSourcesBuildPhase', idsOf(extension.buildPhases)[0]);
    assert.deepEqual(
      idsOf(sourcesPhase.files).map((id) => unquoted(byId(hash, 'PBXFileReference', byId(hash, 'PBXBuildFile', id).fileRef).path)),
      ['ShopWidgets.swift', 'ShopCard.swift'],
    );
    // A file that is not there stops the prebuild with the path; names that are not Swift files, at once.
    await assert.rejects(
      prebuild(project(path.join(root, 'again')), config, { ...options, widget: { sources: ['widgets/Gone.swift'] } }),
      /widget\.sources names widgets\/Gone\.swift, which is not at/,
    );
    assert.throws(() => withDropTrack(config, { ...options, widget: { sources: ['a/W.swift', 'b/W.swift'] } }), /distinct names/);
    assert.throws(() => withDropTrack(config, { ...options, widget: { sources: ['Widget.m'] } }), /must list Swift files/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
