// A look-alike of the part of `expo-modules-core` DropTrack's JavaScript uses (expo/expo,
// packages/expo-modules-core/src: ts-declarations/EventEmitter.ts, ts-declarations/NativeModule.ts,
// requireNativeModule.ts), so tsc checks the module here without npm. Simplified: the other
// exports (SharedObject, Platform, CodedError, the permission hooks…) are absent.
declare module 'expo-modules-core' {
  /** Event names mapped to their listener signatures. */
  export type EventsMap = Record<string, (...args: any[]) => void>;

  /** Returned by `addListener`; `remove()` stops the listener. */
  export type EventSubscription = {
    remove(): void;
  };

  export class EventEmitter<TEventsMap extends EventsMap = Record<never, never>> {
    _TEventsMap_DONT_USE_IT?: TEventsMap;
    constructor();
    addListener<EventName extends keyof TEventsMap>(
      eventName: EventName,
      listener: TEventsMap[EventName],
    ): EventSubscription;
    removeListener<EventName extends keyof TEventsMap>(eventName: EventName, listener: TEventsMap[EventName]): void;
    removeAllListeners(eventName: keyof TEventsMap): void;
    emit<EventName extends keyof TEventsMap>(eventName: EventName, ...args: Parameters<TEventsMap[EventName]>): void;
    listenerCount<EventName extends keyof TEventsMap>(eventName: EventName): number;
    startObserving?<EventName extends keyof TEventsMap>(eventName: EventName): void;
    stopObserving?<EventName extends keyof TEventsMap>(eventName: EventName): void;
  }

  /** The class of every native module, an event emitter. */
  export class NativeModule<TEventsMap extends EventsMap = Record<never, never>> extends EventEmitter<TEventsMap> {
    ViewPrototypes?: { [viewName: string]: object };
    [key: string]: any;
  }

  /** The native module registered under `moduleName`; throws when the app was built without it. */
  export function requireNativeModule<ModuleType = any>(moduleName: string): ModuleType;
}
