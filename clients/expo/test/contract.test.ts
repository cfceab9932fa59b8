import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { test } from 'node:test';
import type { EventSubscription } from 'expo-modules-core';
import { DropTrack } from '../src/DropTrack';
import type { DropTrackEvents, PushEvent } from '../src/DropTrack.types';
import type { DropTrackNativeModule } from '../src/DropTrackNativeModule';
import DropTrackWeb from '../src/DropTrackModule.web';
import { repositoryRoot } from './support';

// clients/expo/test/contract/cases.json: one behaviour for both phones. Here the JavaScript layer is
// driven through it: a native stand-in expects exactly the `native` calls the cases list and
// answers as they say, so what the JavaScript layer refuses, passes on and answers is checked
// against the same file the native sides are checked against.

interface Step {
  call: string;
  args: unknown[];
  native: unknown[] | null;
  resolves?: unknown;
  rejects?: string;
}

interface Contract {
  states: Record<string, unknown>;
  cases: { name: string; platforms: string[]; steps: Step[] }[];
  pushes: { steps: { onPush: PushEvent }[] };
  functions: { sync: string[]; async: string[]; internal: string[] };
  support: { rows: { platform: string; isSupported: boolean; isPushToStartEligible: boolean; canPostPromotedNotifications?: boolean }[] };
}

const contract = JSON.parse(
  fs.readFileSync(path.join(repositoryRoot, 'clients', 'expo', 'test', 'contract', 'cases.json'), 'utf8'),
) as Contract;

/** `@name` → the named state; `"*"` (the local id the native side chose) → what the stand-in answers for it. */
function resolve(value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('@')) {
    const state = contract.states[value.slice(1)];
    assert.ok(state, `cases.json names a state '${value}' it does not define`);
    return state;
  }
  if (value === '*') return 'local-1';
  if (Array.isArray(value)) return value.map(resolve);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item)]));
  }
  return value;
}

/** A native module that expects the cases' native calls in order and answers as each step says. */
class ScriptedNative implements DropTrackNativeModule {
  private listeners = new Map<string, ((event: unknown) => void)[]>();
  private expected: { call: string; args: unknown[]; step: Step }[];

  constructor(steps: Step[]) {
    this.expected = steps.filter((step) => step.native !== null).map((step) => ({ call: step.call, args: resolve(step.native) as unknown[], step }));
  }

  get unmet(): string[] {
    return this.expected.map((entry) => entry.call);
  }

  private async answer(call: string, args: unknown[]): Promise<any> {
    const next = this.expected.shift();
    assert.ok(next, `the JavaScript layer called ${call} where the contract expects no native call`);
    assert.equal(call, next.call);
    assert.deepEqual(args, next.args, `${call}'s native arguments`);
    if (next.step.rejects !== undefined) throw new Error(`DropTrack: ${next.step.rejects}`);
    return resolve(next.step.resolves);
  }

  configure(...args: unknown[]) {
    return this.answer('configure', args);
  }
  setDeviceCredential(...args: unknown[]) {
    return this.answer('setDeviceCredential', args);
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
  areActivitiesEnabled(...args: unknown[]) {
    return this.answer('areActivitiesEnabled', args);
  }
  requestNotificationPermission(...args: unknown[]) {
    return this.answer('requestNotificationPermission', args);
  }
  openLiveActivitySettings(...args: unknown[]) {
    return this.answer('openLiveActivitySettings', args);
  }
  startDelivery(...args: unknown[]) {
    return this.answer('startDelivery', args);
  }
  updateDelivery(...args: unknown[]) {
    return this.answer('updateDelivery', args);
  }
  endDelivery(...args: unknown[]) {
    return this.answer('endDelivery', args);
  }
  getRunningActivities(...args: unknown[]) {
    return this.answer('getRunningActivities', args);
  }
  reconcile(...args: unknown[]) {
    return this.answer('reconcile', args);
  }
  addListener<EventName extends keyof DropTrackEvents>(eventName: EventName, listener: DropTrackEvents[EventName]): EventSubscription {
    const list = this.listeners.get(eventName) ?? [];
    list.push(listener as (event: unknown) => void);
    this.listeners.set(eventName, list);
    return { remove: () => list.splice(list.indexOf(listener as (event: unknown) => void), 1) };
  }
  emit(eventName: keyof DropTrackEvents, event: unknown) {
    for (const listener of this.listeners.get(eventName) ?? []) listener(event);
  }
}

for (const contractCase of contract.cases) {
  test(`contract: ${contractCase.name}`, async () => {
    const native = new ScriptedNative(contractCase.steps);
    const dropTrack = new DropTrack(native) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const step of contractCase.steps) {
      const method = dropTrack[step.call];
      assert.equal(typeof method, 'function', `the JavaScript API has no ${step.call}`);
      const run = () => method!.apply(dropTrack, resolve(step.args) as unknown[]);
      if (step.rejects !== undefined) {
        await assert.rejects(run, (error: Error) => error.message.includes(step.rejects!), `${step.call} rejects with '${step.rejects}'`);
      } else {
        assert.deepEqual(await run(), resolve(step.resolves ?? null));
      }
    }
    assert.deepEqual(native.unmet, [], 'every native call the contract lists was made');
  });
}

test('contract: the pushes the phone received reach addPushListener as the native side emits them', () => {
  const native = new ScriptedNative([]);
  const heard: PushEvent[] = [];
  new DropTrack(native).addPushListener((event) => heard.push(event));
  for (const step of contract.pushes.steps) native.emit('onPush', step.onPush);
  assert.deepEqual(heard, contract.pushes.steps.map((step) => step.onPush));
});

test('contract: the JavaScript API and the web module export every function, the checks synchronously', async () => {
  const dropTrack = new DropTrack(new ScriptedNative([])) as unknown as Record<string, unknown>;
  for (const name of [...contract.functions.sync, ...contract.functions.async]) {
    assert.equal(typeof (DropTrackWeb as unknown as Record<string, unknown>)[name], 'function', `the web module's ${name}`);
    if (contract.functions.internal.includes(name)) continue;
    assert.equal(typeof dropTrack[name], 'function', `DropTrack.${name}`);
  }
  for (const name of contract.functions.sync) {
    const answer = (DropTrackWeb as unknown as Record<string, () => unknown>)[name]!();
    assert.equal(typeof answer, 'boolean', `${name} answers at once, not a promise`);
  }
  const web = contract.support.rows.find((row) => row.platform === 'web')!;
  assert.equal(DropTrackWeb.isSupported(), web.isSupported);
  assert.equal(DropTrackWeb.isPushToStartEligible(), web.isPushToStartEligible);
  assert.equal(DropTrackWeb.canPostPromotedNotifications(), web.canPostPromotedNotifications);
  await assert.rejects(DropTrackWeb.endDelivery('order-unknown', null, null), /the phone shows no delivery 'order-unknown'/);
});
