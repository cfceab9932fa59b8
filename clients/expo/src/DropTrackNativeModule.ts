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
    pushToStartPlaceholder: boolean | null,
  ): Promise<void>;
  /** Hands the native side a device credential, after `onCredentialNeeded`. */
  setDeviceCredential(credential: string): Promise<void>;
  /** Live Activities (iOS 16.2+) or Live Updates (Android 16, API 36) exist here; false on the web. */
  isSupported(): boolean;
  /** The server can start one while the app is not running: iOS 17.2+, Android wherever `isSupported`. */
  isPushToStartEligible(): boolean;
  /** Android 16's promotion check (the person's Live Updates switch for the app); false elsewhere. */
  canPostPromotedNotifications(): boolean;
  /** iOS: Settings › the app › Live Activities. Android: notifications allowed and, on 16, Live Updates too. */
  areActivitiesEnabled(): Promise<boolean>;
  /** Asks for notifications where they need asking (Android 13+); answers whether they may show. */
  requestNotificationPermission(): Promise<boolean>;
  /** Opens the screen where the person allows the app's Live Activities or Live Updates; false when none opened. */
  openLiveActivitySettings(): Promise<boolean>;
  /** Starts a delivery activity on the phone itself; answers its local id. */
  startDelivery(orderId: string, state: DeliveryState): Promise<string>;
  /** A local update, stamped now (a push stamped earlier is then ignored, as ActivityKit does); false for an id not shown or ended. */
  updateDelivery(activityId: string, state: DeliveryState): Promise<boolean>;
  /**
   * Ends it, with the state shown when `state` is null; `dismissAfterSeconds` null keeps it 4 hours
   * (iOS's default), 0 removes it now. Rejects for an id the phone does not show.
   */
  endDelivery(activityId: string, state: DeliveryState | null, dismissAfterSeconds: number | null): Promise<void>;
  getRunningActivities(): Promise<RunningActivity[]>;
  /** Compares the phone with the server now (the native side also does it when the app becomes active). */
  reconcile(): Promise<ReconcileReport>;
  addListener<EventName extends keyof DropTrackEvents>(
    eventName: EventName,
    listener: DropTrackEvents[EventName],
  ): EventSubscription;
}
