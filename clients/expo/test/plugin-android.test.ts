import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AndroidManifest } from '@expo/config-plugins';
import type { ExpoConfig } from '@expo/config-types';
import {
  applyAndroidManifest,
  applyGoogleServicesFile,
  brandColorMetaData,
  checkGoogleServicesFile,
  dropTrackService,
  fcmCoexistence,
  hasExpoNotifications,
} from '../plugin/src/android';
import { repositoryRoot } from './support';

const emptyManifest = (): AndroidManifest => ({
  manifest: {
    $: { 'xmlns:android': 'http://schemas.android.com/apk/res/android' },
    queries: [],
    'uses-permission': [{ $: { 'android:name': 'android.permission.POST_NOTIFICATIONS' } }],
    application: [
      {
        $: { 'android:name': '.MainApplication' },
        service: [{ $: { 'android:name': 'com.example.OtherService', 'android:exported': 'false' } }],
      },
    ],
  },
});

const alone = fcmCoexistence({}, false);
const withExpoNotifications = fcmCoexistence({}, true);

test('the manifest gets the notification and promotion permissions once', () => {
  const twice = applyAndroidManifest(applyAndroidManifest(emptyManifest(), alone), alone);
  assert.deepEqual(
    twice.manifest['uses-permission']?.map((permission) => permission.$['android:name']),
    ['android.permission.POST_NOTIFICATIONS', 'android.permission.POST_PROMOTED_NOTIFICATIONS'],
  );
});

test("the manifest declares DropTrack's FCM service, not exported, once, keeping the app's others", () => {
  const twice = applyAndroidManifest(applyAndroidManifest(emptyManifest(), alone), alone);
  assert.equal(twice.manifest.$['xmlns:tools'], 'http://schemas.android.com/tools');
  const services = twice.manifest.application![0].service!;
  assert.deepEqual(services.map((service) => service.$['android:name']), ['com.example.OtherService', dropTrackService]);
  const service = services[1];
  assert.deepEqual(service.$, { 'android:name': dropTrackService, 'android:exported': 'false', 'tools:node': 'replace' });
  const filter = service['intent-filter']![0] as unknown as { $: Record<string, string>; action: { $: Record<string, string> }[] };
  assert.equal(filter.action[0].$['android:name'], 'com.google.firebase.MESSAGING_EVENT');
  // Alone, the library's priority: above firebase-messaging's own service, below an app's own.
  assert.equal(filter.$['android:priority'], '-1');
});

test("with expo-notifications, DropTrack's service outranks its -1 and forwards the rest", () => {
  assert.deepEqual(withExpoNotifications, { receiver: 'droptrack', priority: 1 });
  const service = applyAndroidManifest(emptyManifest(), withExpoNotifications).manifest.application![0].service![1];
  const filter = service['intent-filter']![0] as unknown as { $: Record<string, string> };
  assert.equal(filter.$['android:priority'], '1');
});

test("the opt-out removes DropTrack's service so expo-notifications alone receives FCM", () => {
  const optOut = fcmCoexistence({ fcmReceiver: 'expo-notifications' }, true);
  const service = applyAndroidManifest(emptyManifest(), optOut).manifest.application![0].service![1];
  assert.deepEqual(service, { $: { 'android:name': dropTrackService, 'tools:node': 'remove' } });
  assert.throws(
    () => fcmCoexistence({ fcmReceiver: 'expo-notifications' }, false),
    /the app has no expo-notifications: remove the option/,
  );
});

test('expo-notifications is found as a plugin or as a dependency', () => {
  const bare: ExpoConfig = { name: 'Shop', slug: 'shop' };
  assert.equal(hasExpoNotifications(bare, { expo: '54.0.0' }), false);
  assert.equal(hasExpoNotifications(bare, undefined), false);
  assert.equal(hasExpoNotifications({ ...bare, plugins: ['expo-notifications'] }, undefined), true);
  assert.equal(hasExpoNotifications({ ...bare, plugins: [['expo-notifications', { icon: './i.png' }]] }, undefined), true);
  assert.equal(hasExpoNotifications(bare, { 'expo-notifications': '0.32.0' }), true);
});

test("brandColor becomes the library's BRAND_COLOR meta-data, once, and nothing without it", () => {
  const twice = applyAndroidManifest(applyAndroidManifest(emptyManifest(), alone, '#0A84FF'), alone, '#0A84FF');
  assert.deepEqual(twice.manifest.application![0]['meta-data'], [
    { $: { 'android:name': 'com.droptrack.android.BRAND_COLOR', 'android:value': '#0A84FF' } },
  ]);
  assert.deepEqual(applyAndroidManifest(emptyManifest(), alone).manifest.application![0]['meta-data'], []);
  const kotlin = fs.readFileSync(
    path.join(repositoryRoot, 'clients/android/src/main/kotlin/com/droptrack/android/core/BrandColor.kt'),
    'utf8',
  );
  assert.ok(kotlin.includes(`MANIFEST_KEY = "${brandColorMetaData}"`), 'the Kotlin library reads another key');
});

test('a manifest without <application> is refused with the fix', () => {
  const broken = emptyManifest();
  broken.manifest.application = [];
  assert.throws(() => applyAndroidManifest(broken, alone), /no <application>: run `npx expo prebuild --clean`/);
});

test("googleServicesFile becomes android.googleServicesFile, which Expo's prebuild copies and applies", () => {
  const bare: ExpoConfig = { name: 'Shop', slug: 'shop', android: { package: 'com.example.shop' } };
  assert.deepEqual(applyGoogleServicesFile(bare, { googleServicesFile: './firebase/google-services.json' }).android, {
    package: 'com.example.shop',
    googleServicesFile: './firebase/google-services.json',
  });
  const configured = { ...bare, android: { googleServicesFile: './google-services.json' } };
  assert.equal(applyGoogleServicesFile(configured, {}).android?.googleServicesFile, './google-services.json');
  assert.throws(() => applyGoogleServicesFile(bare, {}), /download it from the Firebase console/);
});

test('a googleServicesFile that is not there stops the prebuild naming the path', () => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'droptrack-expo-'));
  try {
    assert.throws(
      () => checkGoogleServicesFile(fs.existsSync, path.resolve, project, './missing.json'),
      /'\.\/missing\.json' is not at .*missing\.json/,
    );
    fs.writeFileSync(path.join(project, 'google-services.json'), '{}');
    assert.equal(
      checkGoogleServicesFile(fs.existsSync, path.resolve, project, './google-services.json'),
      path.join(project, 'google-services.json'),
    );
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
