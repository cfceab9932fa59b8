import { randomUUID } from 'node:crypto';
import { RetryOptions, Transport } from './http';
import { fingerprint } from './secrets';

/** Any JSON object the server takes or gives. */
export type JSONObject = { [key: string]: unknown };
export type Environment = 'sandbox' | 'production';
/** Who an audience start reaches. */
export type Audience = { userIds: string[] } | { tags: { all?: string[]; any?: string[] } } | 'everyone';

export interface TokenRegistered {
  fingerprint: string;
  kind: 'push_to_start' | 'activity' | 'fcm' | 'channel_subscription';
  created: boolean;
}
export interface Started {
  activityId: string;
  state: string;
  version: number;
  timestamp: number;
  destinations: number;
  destinationsByKind: Record<string, number>;
  /** A broadcast start's channel. */
  channelId?: string | null;
  /** Added by this client: the key the start was sent with; give it again to retry later. */
  idempotencyKey: string;
}
export interface Version {
  activityId: string;
  state: string;
  version: number;
  timestamp: number;
  event: 'start' | 'update' | 'end';
  priority: number;
  destinations: number;
  contentState: JSONObject;
}
export interface TagSet {
  userId?: string;
  deviceId?: string;
  tags: string[];
}
export interface AudienceRefreshed {
  activityId: string;
  joined: number;
  members: number;
  destinations: number;
}
export interface DeviceCredential {
  credential: string;
  userId: string;
  expiresAt: number;
}

/** A start's fields besides the id, by their wire names. Give `userId` or `audience`. */
export interface StartFields {
  attributesType: string;
  attributes: JSONObject;
  userId?: string;
  audience?: Audience;
  contentState?: JSONObject;
  event?: { type: string; data: JSONObject };
  schedule?: JSONObject;
  alert?: JSONObject;
  /** Made here when not given: the same key gives the same answer and no second send. */
  idempotencyKey?: string;
  staleDate?: number;
  relevanceScore?: number;
  startAt?: number;
  endAt?: number;
  broadcast?: JSONObject;
  widget?: string;
}

const segment = encodeURIComponent;

/**
 * A DropTrack app's backend, holding its API key. Every call rejects with `DropTrackError` carrying the
 * server's `code`, `field` and message on a refusal; 429s and unserved 503s are retried after
 * `Retry-After`, other failures only for calls that cannot act twice.
 */
export class Client {
  readonly #http: Transport;
  /** The API key's fingerprint, the only form in which this client shows it. */
  readonly apiKeyFingerprint: string;

  constructor(baseUrl: string, apiKey: string, options: RetryOptions = {}) {
    this.#http = new Transport(baseUrl, apiKey, options);
    this.apiKeyFingerprint = fingerprint(apiKey);
  }

  toString(): string {
    return `droptrack.Client(${this.#http.baseUrl}, api key ${this.apiKeyFingerprint})`;
  }

  // Tokens

  /** `POST /v1/tokens/push-to-start`: an iPhone's push-to-start token (created false when known). */
  registerPushToStart(token: {
    userId: string;
    deviceId: string;
    token: string;
    environment: Environment;
    attributesType: string;
    device?: JSONObject;
  }): Promise<TokenRegistered> {
    return this.#http.request('POST', '/v1/tokens/push-to-start', token, true);
  }

  /** `POST /v1/tokens/activity`: an activity's update token from one iPhone. */
  registerActivityToken(token: {
    activityId: string;
    deviceId: string;
    token: string;
    environment: Environment;
    device?: JSONObject;
  }): Promise<TokenRegistered> {
    return this.#http.request('POST', '/v1/tokens/activity', token, true);
  }

  /** `POST /v1/tokens/fcm`: an Android device's registration token. */
  registerFcm(token: { userId: string; deviceId: string; token: string; device?: JSONObject }): Promise<TokenRegistered> {
    return this.#http.request('POST', '/v1/tokens/fcm', token, true);
  }

  /** `POST /v1/tokens/channel-subscription`: an iOS 18 device subscribed to a broadcast activity's channel. */
  subscribeChannel(subscription: { activityId: string; deviceId: string; device?: JSONObject }): Promise<TokenRegistered> {
    return this.#http.request('POST', '/v1/tokens/channel-subscription', subscription, true);
  }

  /** `DELETE /v1/tokens/{fingerprint}`. */
  async unregisterToken(tokenFingerprint: string): Promise<void> {
    await this.#http.request('DELETE', `/v1/tokens/${segment(tokenFingerprint)}`, undefined, true);
  }

  // Activities

  /**
   * `POST /v1/activities`: a start for `userId`'s devices, or every member's of `audience`. Its
   * `idempotencyKey` (made here when not given) makes a repeat answer the same and send nothing twice,
   * so this call is retried like a read.
   */
  async startActivity(activityId: string, fields: StartFields): Promise<Started> {
    const idempotencyKey = fields.idempotencyKey ?? `sdk-${randomUUID()}`;
    const started = await this.#http.request<Omit<Started, 'idempotencyKey'>>(
      'POST',
      '/v1/activities',
      { activityId, ...fields, idempotencyKey },
      true,
    );
    return { ...started, idempotencyKey };
  }

  /** An audience start: `{userIds}`, `{tags: {all, any}}` or `'everyone'`. */
  startAudience(activityId: string, audience: Audience, fields: Omit<StartFields, 'userId' | 'audience'>): Promise<Started> {
    return this.startActivity(activityId, { ...fields, audience });
  }

  /** `GET /v1/activities/{id}`: state, content-state, devices by fingerprint, timeline. */
  getActivity(activityId: string, timelineLimit?: number): Promise<JSONObject> {
    const query = timelineLimit === undefined ? '' : `?timelineLimit=${Math.trunc(timelineLimit)}`;
    return this.#http.request('GET', `/v1/activities/${segment(activityId)}${query}`, undefined, true);
  }

  /** `GET /v1/activities/{id}/diagnosis`. */
  diagnose(activityId: string): Promise<JSONObject> {
    return this.#http.request('GET', `/v1/activities/${segment(activityId)}/diagnosis`, undefined, true);
  }

  /** `POST /v1/activities/{id}/events`. Not idempotent: sent again only after a refusal made before serving it. */
  postEvent(activityId: string, event: { type: string; data: JSONObject; terminal?: boolean | 'update' }): Promise<Version> {
    return this.#http.request('POST', `/v1/activities/${segment(activityId)}/events`, event, false);
  }

  /** `PATCH /v1/activities/{id}`: a direct update. Not idempotent. */
  updateActivity(
    activityId: string,
    update: { contentState: JSONObject; alert?: JSONObject; staleDate?: number; relevanceScore?: number; priority?: number },
  ): Promise<Version> {
    return this.#http.request('PATCH', `/v1/activities/${segment(activityId)}`, update, false);
  }

  /** `POST /v1/activities/{id}/end`. Not idempotent: a repeat after the end took effect is 409. */
  endActivity(
    activityId: string,
    end: { contentState?: JSONObject; dismissal?: 'default' | 'immediate' | number } = {},
  ): Promise<Version> {
    return this.#http.request('POST', `/v1/activities/${segment(activityId)}/end`, end, false);
  }

  // Audiences and tags

  /** `POST /v1/activities/{id}/audience/refresh`: users who match now join (a repeat joins nobody). */
  refreshAudience(activityId: string): Promise<AudienceRefreshed> {
    return this.#http.request('POST', `/v1/activities/${segment(activityId)}/audience/refresh`, undefined, true);
  }

  /** `PUT /v1/users/{userId}/tags`: replaces the set. */
  setUserTags(userId: string, tags: string[]): Promise<TagSet> {
    return this.#http.request('PUT', `/v1/users/${segment(userId)}/tags`, { tags }, true);
  }

  getUserTags(userId: string): Promise<TagSet> {
    return this.#http.request('GET', `/v1/users/${segment(userId)}/tags`, undefined, true);
  }

  /** `PUT /v1/devices/{deviceId}/tags`: replaces the set. */
  setDeviceTags(deviceId: string, tags: string[]): Promise<TagSet> {
    return this.#http.request('PUT', `/v1/devices/${segment(deviceId)}/tags`, { tags }, true);
  }

  getDeviceTags(deviceId: string): Promise<TagSet> {
    return this.#http.request('GET', `/v1/devices/${segment(deviceId)}/tags`, undefined, true);
  }

  // Device credentials

  /** `POST /v1/device-credentials`: signed by the app's DropTrack-held key. To sign with your own, `DeviceKey.mint`. */
  issueDeviceCredential(userId: string, ttlSeconds?: number): Promise<DeviceCredential> {
    return this.#http.request('POST', '/v1/device-credentials', ttlSeconds === undefined ? { userId } : { userId, ttlSeconds }, true);
  }

  /** `POST /v1/users/{userId}/revoke-credentials`. Not idempotent (a repeat moves `notBefore` later). */
  revokeCredentials(userId: string): Promise<{ userId: string; notBefore: number }> {
    return this.#http.request('POST', `/v1/users/${segment(userId)}/revoke-credentials`, undefined, false);
  }
}
