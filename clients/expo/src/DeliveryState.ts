import type { DeliveryState } from './DropTrack.types';

/** A delivery state that would not reach the phone intact: names the field and the fix. */
export class DeliveryStateError extends Error {
  constructor(
    readonly field: keyof DeliveryState | null,
    message: string,
  ) {
    super(message);
    this.name = 'DeliveryStateError';
  }
}

// Unix milliseconds before this are almost certainly seconds given by mistake: 1e11 ms is
// 1973-03-03, while 1e11 s is the year 5138. The server's doctor calls the Swift-side form of
// this mistake DT-017 (a Unix time read as seconds since 2001).
const smallestPlausibleEpochMillis = 1e11;

/**
 * Checks a delivery state before it crosses to the native side, so a mistake fails here with
 * the field named rather than as a Live Activity that silently never updates.
 */
export function checkDeliveryState(value: unknown): DeliveryState {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DeliveryStateError(null, 'the delivery state must be an object');
  }
  const state = value as Record<string, unknown>;
  const known: (keyof DeliveryState)[] = [
    'status',
    'progress',
    'etaEpochMillis',
    'stopsRemaining',
    'courierName',
    'riderReassigned',
  ];
  for (const key of Object.keys(state)) {
    if (!(known as string[]).includes(key)) {
      throw new DeliveryStateError(null, `unknown field '${key}'; the fields are ${known.join(', ')}`);
    }
  }
  const text = (key: 'status' | 'courierName') => {
    if (typeof state[key] !== 'string') throw new DeliveryStateError(key, `'${key}' must be a string`);
  };
  text('status');
  text('courierName');
  const progress = state.progress;
  if (typeof progress !== 'number' || !Number.isFinite(progress) || progress < 0 || progress > 1) {
    throw new DeliveryStateError('progress', "'progress' must be a number from 0 to 1 (0.5 is half way)");
  }
  const eta = state.etaEpochMillis;
  if (typeof eta !== 'number' || !Number.isInteger(eta)) {
    throw new DeliveryStateError('etaEpochMillis', "'etaEpochMillis' must be a whole number of Unix milliseconds");
  }
  if (eta < smallestPlausibleEpochMillis) {
    throw new DeliveryStateError(
      'etaEpochMillis',
      `'etaEpochMillis' is ${eta}, which reads as 1973 or earlier: it looks like seconds; multiply by 1000`,
    );
  }
  const stops = state.stopsRemaining;
  if (typeof stops !== 'number' || !Number.isInteger(stops) || stops < 0) {
    throw new DeliveryStateError('stopsRemaining', "'stopsRemaining' must be a whole number, 0 or more");
  }
  if (typeof state.riderReassigned !== 'boolean') {
    throw new DeliveryStateError('riderReassigned', "'riderReassigned' must be true or false");
  }
  return state as unknown as DeliveryState;
}

// ActivityKit decodes a `Date` as seconds since 2001-01-01; this is that instant in Unix seconds.
const referenceDateUnixSeconds = 978307200;

/**
 * The content-state exactly as ActivityKit decodes `DeliveryAttributes.ContentState`: `eta` in
 * seconds since 2001-01-01. The native iOS side sends this form; tests compare it with the
 * contract's vectors.
 */
export function activityKitContentState(state: DeliveryState): Record<string, string | number | boolean> {
  return {
    courierName: state.courierName,
    eta: state.etaEpochMillis / 1000 - referenceDateUnixSeconds,
    progress: state.progress,
    riderReassigned: state.riderReassigned,
    status: state.status,
    stopsRemaining: state.stopsRemaining,
  };
}

/** The inverse of `activityKitContentState`, for states read back from the phone. */
export function deliveryStateFromActivityKit(contentState: Record<string, unknown>): DeliveryState {
  const eta = contentState.eta;
  if (typeof eta !== 'number') throw new DeliveryStateError('etaEpochMillis', "the content-state has no numeric 'eta'");
  const { eta: _eta, ...rest } = contentState;
  return checkDeliveryState({ ...rest, etaEpochMillis: Math.round((eta + referenceDateUnixSeconds) * 1000) });
}
