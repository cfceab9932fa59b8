import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  activityKitContentState,
  checkDeliveryState,
  DeliveryStateError,
  deliveryStateFromActivityKit,
} from '../src/DeliveryState';
import { vector } from './support';

const onTheWay = {
  status: 'On the way',
  progress: 0.5,
  etaEpochMillis: 1796000720000,
  stopsRemaining: 2,
  courierName: 'Sam',
  riderReassigned: false,
};

test('every iOS content-state vector reads into a DeliveryState and back to the same ActivityKit form', () => {
  for (const name of ['placed', 'on-the-way', 'reassigned', 'delivered']) {
    const contentState = vector(`ios/content-state.${name}.json`);
    const state = deliveryStateFromActivityKit(contentState);
    assert.deepEqual(activityKitContentState(state), contentState, name);
  }
});

test('the iOS and Android vectors of one update name the same instant', () => {
  for (const name of ['on-the-way', 'reassigned']) {
    const ios = deliveryStateFromActivityKit(vector(`ios/content-state.${name}.json`));
    const android = vector(`android/update.${name}.json`);
    assert.equal(ios.etaEpochMillis, Number(android.etaEpochMillis), name);
    assert.equal(ios.status, android.status, name);
  }
});

test('an ETA given in seconds is refused, naming the field and the fix', () => {
  assert.throws(
    () => checkDeliveryState({ ...onTheWay, etaEpochMillis: 1796000720 }),
    (error) => error instanceof DeliveryStateError && error.field === 'etaEpochMillis' && /multiply by 1000/.test(error.message),
  );
});

test('each field is checked with its name', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...onTheWay, progress: 1.5 }, 'progress'],
    [{ ...onTheWay, progress: '0.5' }, 'progress'],
    [{ ...onTheWay, stopsRemaining: 1.5 }, 'stopsRemaining'],
    [{ ...onTheWay, courierName: 7 }, 'courierName'],
    [{ ...onTheWay, riderReassigned: 'false' }, 'riderReassigned'],
    [{ ...onTheWay, etaEpochMillis: 1796000720000.5 }, 'etaEpochMillis'],
  ];
  for (const [input, field] of cases) {
    assert.throws(
      () => checkDeliveryState(input),
      (error) => error instanceof DeliveryStateError && error.field === field,
      field,
    );
  }
  assert.throws(() => checkDeliveryState({ ...onTheWay, eta: 1 }), /unknown field 'eta'/);
  assert.deepEqual(checkDeliveryState(onTheWay), onTheWay);
});
