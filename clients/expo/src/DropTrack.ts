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
    await this.native.configure(
      configuration.serverUrl,
      configuration.userId,
      configuration.deviceId ?? null,
      configuration.apnsEnvironment ?? null,
    );
  }

  isSupported(): boolean {
    return this.native.isSupported();
  }

  areActivitiesEnabled(): Promise<boolean> {
    return this.native.areActivitiesEnabled();
  }

  /** Starts a delivery on the phone itself; its update token reaches the server by itself. */
  startDelivery(orderId: string, state: DeliveryState): Promise<string> {
    if (typeof orderId !== 'string' || orderId.length === 0) {
      return Promise.reject(new Error("DropTrack: 'orderId' must be a non-empty string"));
    }
    return this.native.startDelivery(orderId, checkDeliveryState(state));
  }

  updateDelivery(activityId: string, state: DeliveryState): Promise<boolean> {
    return this.native.updateDelivery(activityId, checkDeliveryState(state));
  }

  /** Ends it; `dismissAfterSeconds` omitted keeps iOS's default (up to four hours), 0 removes it now. */
  endDelivery(activityId: string, state?: DeliveryState, dismissAfterSeconds?: number): Promise<void> {
    if (dismissAfterSeconds !== undefined && !(dismissAfterSeconds >= 0 && dismissAfterSeconds <= 4 * 3600)) {
      return Promise.reject(
        new Error("DropTrack: 'dismissAfterSeconds' must be from 0 to 14400 (iOS keeps an ended activity at most 4 hours)"),
      );
    }
    return this.native.endDelivery(
      activityId,
      state === undefined ? null : checkDeliveryState(state),
      dismissAfterSeconds ?? null,
    );
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
