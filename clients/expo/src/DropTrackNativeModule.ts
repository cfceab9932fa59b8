import type { EventSubscription } from 'expo-modules-core';
import type { DeliveryState, DropTrackEvents, ReconcileReport, RunningActivity } from './DropTrack.types';

/**
 * What the native sides (Swift on DropTrackLive, Kotlin on the Android library) export under the
 * name `DropTrack`. `index.ts` wraps it; a web build gets the no-op in `DropTrackModule.web.ts`.
 */
export interface DropTrackNativeModule {
  /** Starts the native token sync (once per launch). */
  configure(
    serverUrl: string,
    userId: string,
    deviceId: string | null,
    apnsEnvironment: string | null,
  ): Promise<void>;
  /** Hands the native side a device credential, after `onCredentialNeeded`. */
  setDeviceCredential(credential: string): Promise<void>;
  /** False on iOS before 16.2, on Android before API 26, and on the web. */
  isSupported(): boolean;
  /** iOS: Settings › the app › Live Activities. Android: notifications allowed. */
  areActivitiesEnabled(): Promise<boolean>;
  /** Starts a delivery activity on the phone itself; answers its local id. */
  startDelivery(orderId: string, state: DeliveryState): Promise<string>;
  /** A local update, stamped now (a push stamped earlier is then ignored, as ActivityKit does). */
  updateDelivery(activityId: string, state: DeliveryState): Promise<boolean>;
  /** Ends it; `dismissAfterSeconds` null keeps the system default, 0 removes it now. */
  endDelivery(activityId: string, state: DeliveryState | null, dismissAfterSeconds: number | null): Promise<void>;
  getRunningActivities(): Promise<RunningActivity[]>;
  /** Compares the phone with the server now (the native side also does it when the app becomes active). */
  reconcile(): Promise<ReconcileReport>;
  addListener<EventName extends keyof DropTrackEvents>(
    eventName: EventName,
    listener: DropTrackEvents[EventName],
  ): EventSubscription;
}
