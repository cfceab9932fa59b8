import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventSubscription } from 'expo-modules-core';
import { DropTrack } from '../src/DropTrack';
import type { DeliveryState, DropTrackEvents, RunningActivity } from '../src/DropTrack.types';
import type { DropTrackNativeModule } from '../src/DropTrackNativeModule';
import DropTrackWeb from '../src/DropTrackModule.web';

/** A native module that records calls and lets the test emit its events. */
class RecordingNative implements DropTrackNativeModule {
  calls: string[] = [];
  credentials: string[] = [];
  listeners = new Map<string, ((event: any) => void)[]>();

  async configure(serverUrl: string, userId: string, _deviceId: string | null, _apns: string | null, placeholder: boolean | null) {
    this.calls.push(placeholder === null ? `configure ${serverUrl} ${userId}` : `configure ${serverUrl} ${userId} placeholder=${placeholder}`);
  }
  async setDeviceCredential(credential: string) {
    this.credentials.push(credential);
  }
  isSupported() {
    return true;
  }
  isPushToStartEligible() {
    return true;
  }
  canPostPromotedNotifications() {
    return false;
  }
  async areActivitiesEnabled() {
    return true;
  }
  async requestNotificationPermission() {
    return true;
  }
  async openLiveActivitySettings() {
    return true;
  }
  async startDelivery(orderId: string) {
    this.calls.push(`start ${orderId}`);
    return 'local-1';
  }
  async updateDelivery(activityId: string) {
    this.calls.push(`update ${activityId}`);
    return true;
  }
  async endDelivery(activityId: string, _state: DeliveryState | null, dismissAfterSeconds: number | null) {
    this.calls.push(`end ${activityId} ${String(dismissAfterSeconds)}`);
  }
  running: RunningActivity[] = [];
  async getRunningActivities() {
    return this.running;
  }
  async reconcile() {
    return { endedLocally: [], reportedLost: [] };
  }
  addListener<EventName extends keyof DropTrackEvents>(
    eventName: EventName,
    listener: DropTrackEvents[EventName],
  ): EventSubscription {
    const list = this.listeners.get(eventName) ?? [];
    list.push(listener);
    this.listeners.set(eventName, list);
    return { remove: () => list.splice(list.indexOf(listener), 1) };
  }
  emit(eventName: keyof DropTrackEvents, event: unknown) {
    for (const listener of this.listeners.get(eventName) ?? []) listener(event);
  }
}

const state: DeliveryState = {
  status: 'Out for delivery',
  progress: 0.7,
  etaEpochMillis: 1796000720000,
  stopsRemaining: 1,
  courierName: 'Sam',
  riderReassigned: false,
};

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

test('the native side asks for a credential and gets the one the app fetched from its backend', async () => {
  const native = new RecordingNative();
  const dropTrack = new DropTrack(native);
  let fetched = 0;
  await dropTrack.configure({
    serverUrl: 'https://push.example.com',
    userId: 'u-42',
    fetchCredential: async () => `credential-${++fetched}`,
  });
  assert.deepEqual(native.calls, ['configure https://push.example.com u-42']);
  native.emit('onCredentialNeeded', { reason: 'start' });
  await settle();
  native.emit('onCredentialNeeded', { reason: 'expired' });
  await settle();
  assert.deepEqual(native.credentials, ['credential-1', 'credential-2']);
});

test('configuring twice keeps one credential listener', async () => {
  const native = new RecordingNative();
  const dropTrack = new DropTrack(native);
  const configuration = { serverUrl: 'https://push.example.com', userId: 'u-42', fetchCredential: async () => 'c' };
  await dropTrack.configure(configuration);
  await dropTrack.configure(configuration);
  assert.equal(native.listeners.get('onCredentialNeeded')?.length, 1);
});

test('the iOS 17.x placeholder option reaches the native side; a non-boolean is refused naming it', async () => {
  const native = new RecordingNative();
  const dropTrack = new DropTrack(native);
  const base = { serverUrl: 'https://push.example.com', userId: 'u-42', fetchCredential: async () => 'c' };
  await dropTrack.configure({ ...base, pushToStartPlaceholder: true });
  await dropTrack.configure({ ...base, pushToStartPlaceholder: false });
  await assert.rejects(
    dropTrack.configure({ ...base, pushToStartPlaceholder: 'yes' as unknown as boolean }),
    /'pushToStartPlaceholder' must be true or false/,
  );
  assert.deepEqual(native.calls, [
    'configure https://push.example.com u-42 placeholder=true',
    'configure https://push.example.com u-42 placeholder=false',
  ]);
});

test('a cleartext or malformed server URL is refused before the native side starts', async () => {
  const native = new RecordingNative();
  const dropTrack = new DropTrack(native);
  await assert.rejects(
    dropTrack.configure({ serverUrl: 'http://push.example.com', userId: 'u', fetchCredential: async () => 'c' }),
    /must be https/,
  );
  await assert.rejects(dropTrack.configure({ serverUrl: 'push', userId: 'u', fetchCredential: async () => 'c' }), /not a URL/);
  await assert.rejects(
    dropTrack.configure({ serverUrl: 'https://push.example.com', userId: '', fetchCredential: async () => 'c' }),
    /userId/,
  );
  assert.deepEqual(native.calls, []);
});

test('a bad delivery state never reaches the native side', async () => {
  const native = new RecordingNative();
  const dropTrack = new DropTrack(native);
  await assert.rejects(dropTrack.startDelivery('A-1', { ...state, etaEpochMillis: 1796000720 }), /multiply by 1000/);
  await assert.rejects(dropTrack.startDelivery('', state), /orderId/);
  await assert.rejects(dropTrack.endDelivery('A-1', undefined, 5 * 3600), /dismissAfterSeconds/);
  assert.deepEqual(native.calls, []);
  assert.equal(await dropTrack.startDelivery('A-1', state), 'local-1');
  await dropTrack.endDelivery('A-1', undefined, 0);
  assert.deepEqual(native.calls, ['start A-1', 'end A-1 0']);
});

test('an older native build without the synchronous checks answers false instead of failing', () => {
  const older = new RecordingNative();
  // A build from before these functions existed: the native module simply lacks them.
  for (const name of ['isPushToStartEligible', 'canPostPromotedNotifications']) {
    Object.defineProperty(older, name, { value: undefined });
  }
  const dropTrack = new DropTrack(older);
  assert.equal(dropTrack.isPushToStartEligible(), false);
  assert.equal(dropTrack.canPostPromotedNotifications(), false);
  assert.equal(new DropTrack(new RecordingNative()).isPushToStartEligible(), true);
});

test("a delivery iOS 26 scheduled to start later is listed as 'pending', a state the type allows", async () => {
  // Typed: without 'pending' in RunningActivity.state this file does not compile (tsc --noEmit fails).
  const scheduled: RunningActivity = { activityId: 'A-1', localId: 'ios-local-1', state: 'pending', contentState: state };
  const native = new RecordingNative();
  native.running = [scheduled];
  const listed = await new DropTrack(native).getRunningActivities();
  assert.deepEqual(
    listed.map((activity) => activity.state),
    ['pending'],
  );
});

test('the web module is a no-op that says why a start cannot happen', async () => {
  assert.equal(DropTrackWeb.isSupported(), false);
  assert.deepEqual(await DropTrackWeb.getRunningActivities(), []);
  await assert.rejects(DropTrackWeb.startDelivery('A-1', state), /iOS and Android only/);
  DropTrackWeb.addListener('onToken', () => undefined).remove();
});
