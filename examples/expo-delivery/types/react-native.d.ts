// A look-alike of the part of react-native's types the example uses (react-native 0.81,
// packages/react-native/Libraries: Linking/Linking.d.ts, Components/Button.d.ts,
// PermissionsAndroid/PermissionsAndroid.d.ts, StyleSheet/StyleSheet.d.ts; Text, View, ScrollView,
// Platform and the globals). Linking, Button and PermissionsAndroid carry their real signatures;
// the rest is simplified: View, Text and ScrollView take a few of their props and are plain
// components (the real ones mix in NativeMethods), styles are loosely typed, the permission list
// is shortened to the one the example asks for.
declare module 'react-native' {
  import type * as React from 'react';

  type OpaqueColorValue = symbol & { __TYPE__: 'Color' };
  export type ColorValue = string | OpaqueColorValue;
  export type StyleProp<T> = T | readonly StyleProp<T>[] | false | null | undefined;
  export interface ViewStyle {
    [key: string]: string | number | undefined;
  }
  export interface TextStyle extends ViewStyle {}

  export interface ViewProps {
    style?: StyleProp<ViewStyle> | undefined;
    testID?: string | undefined;
    children?: React.ReactNode | undefined;
  }
  export class View extends React.Component<ViewProps> {}
  export interface ScrollViewProps extends ViewProps {
    contentContainerStyle?: StyleProp<ViewStyle> | undefined;
  }
  export class ScrollView extends React.Component<ScrollViewProps> {}
  export interface TextProps {
    style?: StyleProp<TextStyle> | undefined;
    testID?: string | undefined;
    selectable?: boolean | undefined;
    children?: React.ReactNode | undefined;
  }
  export class Text extends React.Component<TextProps> {}

  export interface ButtonProps {
    title: string;
    color?: ColorValue | undefined;
    onPress?: ((event: unknown) => void) | undefined;
    disabled?: boolean | undefined;
    testID?: string | undefined;
    accessibilityLabel?: string | undefined;
  }
  export class Button extends React.Component<ButtonProps> {}

  export namespace StyleSheet {
    type NamedStyles<T> = { [P in keyof T]: ViewStyle | TextStyle };
    export function create<T extends NamedStyles<T> | NamedStyles<any>>(styles: T & NamedStyles<any>): T;
  }

  export interface EmitterSubscription {
    remove(): void;
  }
  export interface LinkingImpl {
    addEventListener(type: 'url', handler: (event: { url: string }) => void): EmitterSubscription;
    openURL(url: string): Promise<any>;
    canOpenURL(url: string): Promise<boolean>;
    getInitialURL(): Promise<string | null>;
    openSettings(): Promise<void>;
  }
  export const Linking: LinkingImpl;

  export const Platform: {
    OS: 'ios' | 'android' | 'macos' | 'windows' | 'web';
    Version: number | string;
  };

  export type Permission = 'android.permission.POST_NOTIFICATIONS';
  export type PermissionStatus = 'granted' | 'denied' | 'never_ask_again';
  export interface Rationale {
    title: string;
    message: string;
    buttonPositive: string;
    buttonNegative?: string | undefined;
    buttonNeutral?: string | undefined;
  }
  export interface PermissionsAndroidStatic {
    RESULTS: { [key in 'GRANTED' | 'DENIED' | 'NEVER_ASK_AGAIN']: PermissionStatus };
    PERMISSIONS: { [key in 'POST_NOTIFICATIONS']: Permission };
    check(permission: Permission): Promise<boolean>;
    request(permission: Permission, rationale?: Rationale): Promise<PermissionStatus>;
  }
  export const PermissionsAndroid: PermissionsAndroidStatic;
}

// React Native's globals (types/modules/globals.d.ts), as far as the example uses them.
declare const __DEV__: boolean;
declare function fetch(input: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}>;
declare const console: {
  log(...data: unknown[]): void;
  warn(...data: unknown[]): void;
};
