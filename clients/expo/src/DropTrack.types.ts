// The JavaScript face of DropTrack's Expo module: the delivery state the app shows, and the
// events the native side sends. Tokens never cross into JavaScript; events name them by
// fingerprint (the first 16 hex digits of their SHA-256), as the server's logs do.

/** What the delivery Live Activity (iOS) or Live Update (Android) shows. */
export interface DeliveryState {
  /** The card's headline, e.g. "Out for delivery". */
  status: string;
  /** Progress through the seven steps, from 0 to 1. */
  progress: number;
  /** Estimated arrival, Unix time in milliseconds (what `Date.now()` gives). */
  etaEpochMillis: number;
  /** Stops the courier makes before this one; a whole number. */
  stopsRemaining: number;
  /** The courier's display name. */
  courierName: string;
  /** True once the order moved to another courier. */
  riderReassigned: boolean;
}

/** A Live Activity (iOS) or Live Update (Android) the phone shows now. */
export interface RunningActivity {
  /** DropTrack's activity id (the order id for deliveries). */
  activityId: string;
  /** The phone's own id for it (ActivityKit's `Activity.id`, or the notification id). */
  localId: string;
  /**
   * `pending`: iOS 26 scheduled it to start later (ActivityKit's `ActivityState.pending`); it is
   * not on the screen yet. Android has no such state.
   */
  state: 'pending' | 'active' | 'stale' | 'ended' | 'dismissed';
  contentState: DeliveryState;
}

/** Where the native side registers tokens, and as what. */
export interface DropTrackConfiguration {
  /** The DropTrack server, e.g. `https://push.example.com`. */
  serverUrl: string;
  /** The signed-in user; the device credential must be for this user. */
  userId: string;
  /**
   * Asked for a device credential whenever the native side needs one (at start, and again when
   * the server answers 401). Call your own backend here; it mints the credential with its API
   * key (`POST /v1/device-credentials`) or its own signing key. Never ship an API key in the app.
   */
  fetchCredential: () => Promise<string>;
  /** A stable id for this install; the native side makes and keeps one when omitted. */
  deviceId?: string;
  /** APNs environment; the native side reads it from the build when omitted. */
  apnsEnvironment?: 'sandbox' | 'production';
  /**
   * iOS 17.x gives the push-to-start token only after the app has started a Live Activity itself.
   * When true, the iOS side starts a hidden placeholder at launch on 17.x (requested and ended at
   * once, never shown, its token never registered) so the server can start deliveries there.
   * Off when omitted; nothing happens on iOS 18+ or Android.
   */
  pushToStartPlaceholder?: boolean;
}

/** A token the native side registered (or is retrying), named by fingerprint. */
export interface TokenEvent {
  kind: 'push_to_start' | 'activity' | 'fcm';
  fingerprint: string;
  activityId?: string;
  status: 'registered' | 'retrying' | 'failed';
  /** Why it is retrying or failed, with the fix, when it is. */
  error?: string;
  /** When the next attempt is due (Unix ms), while it is retrying; it survives the app being killed. */
  nextAttemptAt?: number;
}

/** A push the phone received for an activity (Android: every DropTrack FCM message, shown or not). */
export interface PushEvent {
  activityId: string;
  event: 'start' | 'update' | 'end';
  /** Set when the phone did not show the push, with the reason (an older sequence, a card the person dismissed). */
  dropped?: string;
}

/** What reconciliation did. */
export interface ReconcileReport {
  /** Activities the server had ended, now ended on the phone too. */
  endedLocally: string[];
  /** Activities the server thought this phone shows and it does not, reported as lost. */
  reportedLost: string[];
}

/** The events the native module emits. */
export type DropTrackEvents = {
  onToken: (event: TokenEvent) => void;
  onPush: (event: PushEvent) => void;
  onCredentialNeeded: (event: { reason: 'start' | 'expired' | 'refused' }) => void;
};
