// A look-alike of the part of `expo-modules-core` this module uses, written from Expo's
// documentation and published declarations (expo-modules-core 2.x, Expo SDK 52+), so `tsc`
// type-checks the module here without npm. A real app compiles against the real package.
declare module 'expo-modules-core' {
  /** Event names mapped to their listener types. */
  export type EventsMap = Record<string, (...args: any[]) => void>;

  /** Returned by `addListener`; `remove()` stops the listener. */
  export interface EventSubscription {
    remove(): void;
  }

  /** The base of every native module object, which is also an event emitter. */
  export class EventEmitter<TEventsMap extends EventsMap = Record<never, never>> {
    addListener<EventName extends keyof TEventsMap>(
      eventName: EventName,
      listener: TEventsMap[EventName],
    ): EventSubscription;
    removeListener<EventName extends keyof TEventsMap>(eventName: EventName, listener: TEventsMap[EventName]): void;
    removeAllListeners(eventName: keyof TEventsMap): void;
    emit<EventName extends keyof TEventsMap>(eventName: EventName, ...args: Parameters<TEventsMap[EventName]>): void;
    listenerCount<EventName extends keyof TEventsMap>(eventName: EventName): number;
  }

  /** A class for all native modules. */
  export class NativeModule<TEventsMap extends EventsMap = Record<never, never>> extends EventEmitter<TEventsMap> {
    [key: string]: any;
  }

  /** Returns the native module object registered under `moduleName`, or throws. */
  export function requireNativeModule<ModuleType = any>(moduleName: string): ModuleType;
}
