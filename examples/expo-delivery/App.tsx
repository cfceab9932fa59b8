// The handbook's three verbs (start, update and end a delivery) on DropTrack's Expo module, and in
// development builds the deep links droptrack://drive/start, /next and /end, so a script can drive
// the app without touching it (scripts/device/drive.sh next: xcrun simctl openurl booted
// droptrack://drive/next, or adb shell am start -a android.intent.action.VIEW -d droptrack://drive/next).
import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, Linking, PermissionsAndroid, Platform, ScrollView, Text, View } from 'react-native';
import * as DropTrack from 'droptrack-expo';
import type { DeliveryState, RunningActivity } from 'droptrack-expo';
import { config } from './config';

const steps = ['Order placed', 'Preparing', 'Ready for pickup', 'Picked up', 'On the way', 'Almost there', 'Delivered'];

/** The card at step `index` (0…6): progress through the seven steps, the ETA moving closer. */
export function deliveryState(index: number, startedAt: number): DeliveryState {
  const last = steps.length - 1;
  return {
    status: steps[index],
    progress: (index + 1) / steps.length,
    etaEpochMillis: startedAt + (last - index) * 5 * 60_000 + 60_000,
    stopsRemaining: Math.max(0, last - 1 - index),
    courierName: 'Sam',
    riderReassigned: false,
  };
}

async function credentialFromBackend(): Promise<string> {
  const response = await fetch(`${config.credentialUrl}?userId=${encodeURIComponent(config.userId)}`);
  if (!response.ok) throw new Error(`the backend answered ${response.status}`);
  return ((await response.json()) as { credential: string }).credential;
}

/** Android 13+ asks for POST_NOTIFICATIONS at run time; without it no Live Update is shown. */
async function allowNotifications(): Promise<void> {
  if (Platform.OS === 'android' && Number(Platform.Version) >= 33) {
    await PermissionsAndroid.request(PermissionsAndroid.PERMISSIONS.POST_NOTIFICATIONS);
  }
}

export default function App() {
  const [log, setLog] = useState<string[]>([]);
  const [running, setRunning] = useState<RunningActivity[]>([]);
  const delivery = useRef<{ id: string; step: number; startedAt: number } | null>(null);
  const say = useCallback((line: string) => setLog((lines) => [line, ...lines].slice(0, 20)), []);

  useEffect(() => {
    const tokens = DropTrack.addTokenListener((event) => {
      // scripts/device/capture-tokens.sh picks this line out of the phone's log (a fingerprint, never a token).
      if (__DEV__) console.log(`[DropTrack] ${event.kind} token ${event.fingerprint}: ${event.status}`);
      say(`${event.kind} token ${event.fingerprint}: ${event.status}`);
    });
    DropTrack.configure({ serverUrl: config.serverUrl, userId: config.userId, fetchCredential: credentialFromBackend })
      .then(() => say(DropTrack.isSupported() ? 'DropTrack is syncing' : 'this phone shows no Live Activities or Updates'))
      .catch((error: Error) => say(error.message));
    return () => tokens.remove();
  }, [say]);

  const refresh = useCallback(async () => setRunning(await DropTrack.getRunningActivities()), []);

  const start = useCallback(async () => {
    await allowNotifications();
    const startedAt = Date.now();
    const orderId = `A-${startedAt % 100_000}`;
    const id = await DropTrack.startDelivery(orderId, deliveryState(0, startedAt));
    delivery.current = { id, step: 0, startedAt };
    say(`started ${orderId}`);
    await refresh();
  }, [refresh, say]);

  const next = useCallback(async () => {
    const current = delivery.current;
    if (current === null || current.step >= steps.length - 1) return;
    current.step += 1;
    await DropTrack.updateDelivery(current.id, deliveryState(current.step, current.startedAt));
    say(steps[current.step]);
    await refresh();
  }, [refresh, say]);

  const end = useCallback(async () => {
    const current = delivery.current;
    if (current === null) return;
    await DropTrack.endDelivery(current.id, deliveryState(steps.length - 1, current.startedAt), 60);
    delivery.current = null;
    say('delivered');
    await refresh();
  }, [refresh, say]);

  // The listener is registered once, so it reads the verbs through a ref, not the first render's.
  const verbs = useRef<Record<string, () => Promise<void>>>({});
  verbs.current = { start, next, end };
  useEffect(() => {
    if (!__DEV__) return;
    const run = (url: string | null) => {
      const verb = url?.match(/^droptrack:\/\/drive\/(\w+)$/)?.[1];
      const action = verb === undefined ? undefined : verbs.current[verb];
      if (action === undefined) return;
      console.log(`[DropTrack] drive/${verb}`);
      action().catch((error: Error) => say(error.message));
    };
    const subscription = Linking.addEventListener('url', ({ url }) => run(url));
    // A cold start by link delivers the URL here, not as a 'url' event.
    Linking.getInitialURL().then(run).catch(() => undefined);
    return () => subscription.remove();
  }, [say]);

  return (
    <ScrollView contentContainerStyle={{ padding: 24, gap: 12 }}>
      <Text testID="title">DropTrack delivery</Text>
      <View style={{ flexDirection: 'row', gap: 8 }}>
        <Button testID="start" title="Start" onPress={() => start().catch((e: Error) => say(e.message))} />
        <Button testID="next" title="Next step" onPress={() => next().catch((e: Error) => say(e.message))} />
        <Button testID="end" title="End" onPress={() => end().catch((e: Error) => say(e.message))} />
      </View>
      {running.map((activity) => (
        <Text key={activity.activityId} testID={`running-${activity.activityId}`}>
          {activity.activityId}: {activity.state}, {activity.contentState.status} ({Math.round(activity.contentState.progress * 100)}%)
        </Text>
      ))}
      {log.map((line, index) => (
        <Text key={index} selectable>
          {line}
        </Text>
      ))}
    </ScrollView>
  );
}
