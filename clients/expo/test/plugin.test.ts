import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ExpoConfig } from '@expo/config-types';
import withDropTrack from '../plugin/src/withDropTrack';
import { applyEntitlements, applyInfoPlist, checkOptions } from '../plugin/src/transforms';

test('Info.plist gets Live Activities, and frequent updates only when asked', () => {
  assert.deepEqual(applyInfoPlist({ CFBundleName: 'Shop' }, {}), { CFBundleName: 'Shop', NSSupportsLiveActivities: true });
  assert.deepEqual(applyInfoPlist({ NSSupportsLiveActivitiesFrequentUpdates: true }, { frequentUpdates: false }), {
    NSSupportsLiveActivities: true,
  });
  assert.equal(applyInfoPlist({}, { frequentUpdates: true }).NSSupportsLiveActivitiesFrequentUpdates, true);
});

test('entitlements get aps-environment and the App Group once, keeping what was there', () => {
  const before = { 'keychain-access-groups': ['x'], 'com.apple.security.application-groups': ['group.other'] };
  const once = applyEntitlements(before, { appGroup: 'group.com.example.shop', apsEnvironment: 'production' });
  const twice = applyEntitlements(once, { appGroup: 'group.com.example.shop', apsEnvironment: 'production' });
  assert.deepEqual(twice, {
    'keychain-access-groups': ['x'],
    'com.apple.security.application-groups': ['group.other', 'group.com.example.shop'],
    'aps-environment': 'production',
  });
  assert.equal(applyEntitlements({}, {})['aps-environment'], 'development');
});

test('bad options are refused with the fix', () => {
  assert.throws(() => checkOptions({ appGroup: 'com.example.shop' }), /'group\.' prefix/);
  assert.throws(() => checkOptions({ apsEnvironment: 'sandbox' as 'development' }), /'development' \(sandbox tokens\)/);
  assert.throws(() => checkOptions({ fcmReceiver: 'both' as 'droptrack' }), /fcmReceiver is 'both'; use 'droptrack'/);
  for (const bad of ['0A84FF', '#0A84F', '#0A84FFAA', 'blue', 42]) {
    assert.throws(() => checkOptions({ brandColor: bad as string }), /brandColor is .*; use #RRGGBB/);
  }
  assert.deepEqual(checkOptions({ brandColor: '#0a84ff' }), { brandColor: '#0a84ff' });
  assert.deepEqual(checkOptions(undefined), {});
});

type Recorded = ExpoConfig & { mods: { name: string; mod: (config: any) => any }[] };

function projectWith(dependencies: Record<string, string>): string {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'droptrack-expo-'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ dependencies }));
  fs.writeFileSync(path.join(project, 'google-services.json'), '{"project_info":{}}');
  return project;
}

const manifest = () => ({
  manifest: {
    $: { 'xmlns:android': 'http://schemas.android.com/apk/res/android' },
    queries: [],
    application: [{ $: { 'android:name': '.MainApplication' } }],
  },
});

test('the plugin wires each change to its native file, once however often it is listed', async () => {
  const config: ExpoConfig = { name: 'Shop', slug: 'shop', android: { googleServicesFile: './google-services.json' } };
  const options = { appGroup: 'group.com.example.shop', frequentUpdates: true };
  const applied = withDropTrack(withDropTrack(config, options), options) as Recorded;
  assert.deepEqual(
    applied.mods.map((entry) => entry.name),
    ['ios.infoPlist', 'ios.entitlements', 'ios.xcodeproj', 'ios.dangerous', 'android.manifest', 'android.dangerous'],
  );
  const project = projectWith({ expo: '54.0.0', 'expo-notifications': '0.32.0' });
  try {
    const run = async (name: string, modResults: unknown) =>
      (await applied.mods.find((entry) => entry.name === name)!.mod({
        ...applied,
        modResults,
        modRequest: { projectRoot: project, platformProjectRoot: path.join(project, 'android') },
      })).modResults;
    assert.equal((await run('ios.infoPlist', {})).NSSupportsLiveActivitiesFrequentUpdates, true);
    assert.deepEqual((await run('ios.entitlements', {}))['com.apple.security.application-groups'], [
      'group.com.example.shop',
    ]);
    // expo-notifications is a dependency: DropTrack's service is declared above its priority.
    const android = await run('android.manifest', manifest());
    const service = android.manifest.application[0].service[0];
    assert.equal(service['intent-filter'][0].$['android:priority'], '1');
    await run('android.dangerous', undefined);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
  assert.throws(() => withDropTrack(config, { appGroup: 'shop' }), /'group\.' prefix/);
});

test('the plugin leaves the iOS deployment target alone (the module builds at Expo\'s 15.1)', () => {
  const config: ExpoConfig = {
    name: 'Shop',
    slug: 'shop',
    ios: { bundleIdentifier: 'com.example.shop' },
    plugins: [['expo-build-properties', { ios: { deploymentTarget: '15.1' } }]],
    android: { googleServicesFile: './google-services.json' },
  };
  const applied = withDropTrack(config, {}) as Recorded;
  assert.deepEqual(applied.ios, { bundleIdentifier: 'com.example.shop' });
  assert.deepEqual(applied.plugins, config.plugins);
  // No mod of the Podfile properties, where Expo keeps ios.deploymentTarget.
  assert.equal(applied.mods.some((entry) => entry.name.startsWith('ios.podfile')), false);
});
