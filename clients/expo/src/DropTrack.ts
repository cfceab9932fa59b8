import type { EventSubscription } from 'expo-modules-core';
import { checkDeliveryState } from './DeliveryState';
import type {
  DeliveryState,
  DropTrackConfiguration,
  DropTrackEvents,
  ReconcileReport,
  RunningActivity,
} from './DropTrack.types';
import type { DropTrackNativeModule } from './DropTrackNativeModule';

/**
 * The module's API over a native module: checks input before it crosses to the native side,
 * and answers the native side's requests for a device credential with the app's own function.
 * Made by a factory so the tests can drive it with a native module of their own.
 */
export class DropTrack {
  private credentialSubscription: EventSubscription | null = null;

  constructor(private readonly native: DropTrackNativeModule) {}

  /** Starts the sync: call once, early in the app's life (before any UI waits on it). */
  async configure(configuration: DropTrackConfiguration): Promise<void> {
    let url: URLLike;
    try {
      url = parseURL(configuration.serverUrl);
    } catch {
      throw new Error(`DropTrack: serverUrl '${configuration.serverUrl}' is not a URL; give e.g. https://push.example.com`);
    }
    if (url.protocol !== 'https:' && !['localhost', '127.0.0.1', '10.0.2.2'].includes(url.hostname)) {
      throw new Error(
        `DropTrack: serverUrl must be https (iOS App Transport Security and Android both refuse cleartext); got ${url.protocol}`,
      );
    }
    this.credentialSubscription?.remove();
    this.credentialSubscription = this.native.addListener('onCredentialNeeded', () => {
      // A failure here leaves the native side waiting and retrying; it asks again later.
      configuration
        .fetchCredential()
        .then((credential) => this.native.setDeviceCredential(credential))
        .catch(() => undefined);
    });
    if (typeof configuration.userId !== 'string' || configuration.userId.length === 0) {
      throw new Error("DropTrack: 'userId' must be the signed-in user's id, the one the device credential names");
    }
    const placeholder = configuration.pushToStartPlaceholder;
    if (placeholder !== undefined && typeof placeholder !== 'boolean') {
      throw new Error("DropTrack: 'pushToStartPlaceholder' must be true or false (or left out, which is false)");
    }
    await this.native.configure(
      configuration.serverUrl,
      configuration.userId,
      configuration.deviceId ?? null,
      configuration.apnsEnvironment ?? null,
      placeholder ?? null,
    );
  }

  /** Live Activities (iOS 16.2+) or Live Updates (Android 16) exist on this phone. */
  isSupported(): boolean {
    return this.native.isSupported();
  }

  /**
   * Whether the server can start a delivery while the app is not running (iOS 17.2+; Android
   * wherever Live Updates exist). False, never a crash, on an older phone or an older native build:
   * the app then goes without live tracking.
   */
  isPushToStartEligible(): boolean {
    return this.optional('isPushToStartEligible');
  }

  /** Synchronous, for the first render: Android 16 lets this app promote its cards now. False elsewhere. */
  canPostPromotedNotifications(): boolean {
    return this.optional('canPostPromotedNotifications');
  }

  areActivitiesEnabled(): Promise<boolean> {
    return this.native.areActivitiesEnabled();
  }

  /** Asks for notifications where a phone needs asking (Android 13+): call when the person knows why. */
  requestNotificationPermission(): Promise<boolean> {
    return this.native.requestNotificationPermission();
  }

  /** Opens the phone's setting for this app's Live Activities (iOS) or Live Updates (Android 16). */
  openLiveActivitySettings(): Promise<boolean> {
    return this.native.openLiveActivitySettings();
  }

  /** Starts a delivery on the phone itself; answers its local id. */
  startDelivery(orderId: string, state: DeliveryState): Promise<string> {
    if (typeof orderId !== 'string' || orderId.length === 0) {
      return Promise.reject(new Error("DropTrack: 'orderId' must be a non-empty string"));
    }
    return this.checked(state, (checked) => this.native.startDelivery(orderId, checked));
  }

  /** Replaces what the delivery shows; false (and nothing shown) for an id the phone does not show or that ended. */
  updateDelivery(activityId: string, state: DeliveryState): Promise<boolean> {
    return this.checked(state, (checked) => this.native.updateDelivery(activityId, checked));
  }

  /**
   * Ends it, with `state` or else the state it shows. `dismissAfterSeconds` omitted keeps the ended
   * delivery up to four hours (iOS's default, and Android's here), 0 removes it now.
   */
  endDelivery(activityId: string, state?: DeliveryState, dismissAfterSeconds?: number): Promise<void> {
    if (dismissAfterSeconds !== undefined && !(dismissAfterSeconds >= 0 && dismissAfterSeconds <= 4 * 3600)) {
      return Promise.reject(
        new Error("DropTrack: 'dismissAfterSeconds' must be from 0 to 14400 (iOS keeps an ended activity at most 4 hours)"),
      );
    }
    if (state === undefined) return this.native.endDelivery(activityId, null, dismissAfterSeconds ?? null);
    return this.checked(state, (checked) => this.native.endDelivery(activityId, checked, dismissAfterSeconds ?? null));
  }

  getRunningActivities(): Promise<RunningActivity[]> {
    return this.native.getRunningActivities();
  }

  reconcile(): Promise<ReconcileReport> {
    return this.native.reconcile();
  }

  addTokenListener(listener: DropTrackEvents['onToken']): EventSubscription {
    return this.native.addListener('onToken', listener);
  }

  addPushListener(listener: DropTrackEvents['onPush']): EventSubscription {
    return this.native.addListener('onPush', listener);
  }

  /** A state checked before it crosses: a mistake rejects the promise, as the native side's refusals do. */
  private checked<T>(state: DeliveryState, call: (checked: DeliveryState) => Promise<T>): Promise<T> {
    let checked: DeliveryState;
    try {
      checked = checkDeliveryState(state);
    } catch (error) {
      return Promise.reject(error);
    }
    return call(checked);
  }

  /** A synchronous check an older native build may lack: false rather than a TypeError. */
  private optional(name: 'isPushToStartEligible' | 'canPostPromotedNotifications'): boolean {
    const check = (this.native as Partial<DropTrackNativeModule>)[name];
    return typeof check === 'function' ? check.call(this.native) === true : false;
  }
}

interface URLLike {
  protocol: string;
  hostname: string;
}

// `URL` is a global in React Native, browsers and Node, but not in the ES2020 library types.
declare const URL: new (text: string) => URLLike;

function parseURL(text: string): URLLike {
  return new URL(text);
}
