// A look-alike of `expo`'s registerRootComponent (expo/expo, packages/expo/src/launch/
// registerRootComponent.tsx and withExpoRoot.types.ts), which the example's entry point calls.
declare module 'expo' {
  import type { ComponentType } from 'react';
  export type InitialProps = {
    exp?: { notification?: any; manifestString?: string; [key: string]: any };
    shell?: boolean;
    shellManifestUrl?: string;
    [key: string]: any;
  };
  export function registerRootComponent<P extends InitialProps>(component: ComponentType<P>): void;
}
