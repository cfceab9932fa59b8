import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AndroidManifest, ExpoConfig } from '@expo/config-plugins';
import withDropTrack from '../plugin/src/withDropTrack';
import {
  applyAndroidManifest,
  applyEntitlements,
  applyInfoPlist,
  checkOptions,
  copyGoogleServices,
  type FileAccess,
} from '../plugin/src/transforms';

const nodeFiles: FileAccess = {
  exists: fs.existsSync,
  copy: fs.copyFileSync,
  makeDirectory: (directory) => {
    fs.mkdirSync(directory, { recursive: true });
  },
  resolve: path.resolve,
  dirname: path.dirname,
};

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

test('the manifest gets the notification and promotion permissions once', () => {
  const manifest: AndroidManifest = {
    manifest: { $: {}, 'uses-permission': [{ $: { 'android:name': 'android.permission.POST_NOTIFICATIONS' } }] },
  };
  const twice = applyAndroidManifest(applyAndroidManifest(manifest));
  assert.deepEqual(
    twice.manifest['uses-permission']?.map((permission) => permission.$['android:name']),
    ['android.permission.POST_NOTIFICATIONS', 'android.permission.POST_PROMOTED_NOTIFICATIONS'],
  );
});

test('bad options are refused with the fix', () => {
  assert.throws(() => checkOptions({ appGroup: 'com.example.shop' }), /'group\.' prefix/);
  assert.throws(() => checkOptions({ apsEnvironment: 'sandbox' as 'development' }), /'development' \(sandbox tokens\)/);
  assert.deepEqual(checkOptions(undefined), {});
});

test('google-services.json is copied into android/app, or the build stops naming the fix', () => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'droptrack-expo-'));
  try {
    const android = path.join(project, 'android');
    assert.throws(
      () => copyGoogleServices(nodeFiles, project, android, {}, undefined),
      /download it from the Firebase console/,
    );
    assert.throws(
      () => copyGoogleServices(nodeFiles, project, android, { googleServicesFile: './missing.json' }, undefined),
      /'\.\/missing\.json' is not at .*missing\.json/,
    );
    fs.writeFileSync(path.join(project, 'google-services.json'), '{"project_info":{}}');
    const copied = copyGoogleServices(nodeFiles, project, android, {}, './google-services.json');
    assert.equal(copied.destination, path.join(android, 'app', 'google-services.json'));
    assert.equal(fs.readFileSync(copied.destination, 'utf8'), '{"project_info":{}}');
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});

test('the plugin wires each transformation to its native file, once however often it is listed', async () => {
  const config: ExpoConfig = { name: 'Shop', slug: 'shop' };
  const options = { appGroup: 'group.com.example.shop', frequentUpdates: true };
  const applied = withDropTrack(withDropTrack(config, options), options) as ExpoConfig & {
    mods: { name: string; mod: (config: any) => any }[];
  };
  assert.deepEqual(
    applied.mods.map((entry) => entry.name),
    ['ios.infoPlist', 'ios.entitlements', 'android.manifest', 'android.dangerous'],
  );
  const run = async (name: string, modResults: unknown) =>
    (await applied.mods.find((entry) => entry.name === name)!.mod({ ...applied, modResults })).modResults;
  assert.equal((await run('ios.infoPlist', {})).NSSupportsLiveActivitiesFrequentUpdates, true);
  assert.deepEqual((await run('ios.entitlements', {}))['com.apple.security.application-groups'], [
    'group.com.example.shop',
  ]);
  assert.throws(() => withDropTrack(config, { appGroup: 'shop' }), /'group\.' prefix/);
});
