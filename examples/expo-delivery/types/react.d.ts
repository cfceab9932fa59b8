// A look-alike of the part of React's types the example uses (@types/react 19, DefinitelyTyped
// types/react/index.d.ts and jsx-runtime.d.ts), so tsc checks App.tsx here without npm. A real app
// compiles against @types/react. Read from index.d.ts: useState, useEffect, useRef (the non-null
// overload only), useCallback, Dispatch, SetStateAction, DependencyList; EffectCallback drops the
// Destructor brand. Simplified, not line by line: ReactNode, ReactElement, Component, the component
// types and the JSX namespace (React 19 keeps JSX under React.JSX, which react/jsx-runtime re-exports).
declare module 'react' {
  export type Key = string | number | bigint;
  export type ReactNode = ReactElement | string | number | bigint | boolean | null | undefined | Iterable<ReactNode>;
  export interface ReactElement<P = unknown, T = unknown> {
    type: T;
    props: P;
    key: string | null;
  }
  export type PropsWithChildren<P = unknown> = P & { children?: ReactNode | undefined };

  export class Component<P = {}, S = {}> {
    constructor(props: P);
    readonly props: Readonly<P>;
    state: Readonly<S>;
    render(): ReactNode;
  }
  export interface FunctionComponent<P = {}> {
    (props: P): ReactNode;
    displayName?: string | undefined;
  }
  export interface ComponentClass<P = {}> {
    new (props: P): Component<P, any>;
  }
  export type ComponentType<P = {}> = ComponentClass<P> | FunctionComponent<P>;

  export type Dispatch<A> = (value: A) => void;
  export type SetStateAction<S> = S | ((prevState: S) => S);
  export type DependencyList = readonly unknown[];
  export type EffectCallback = () => void | (() => void);
  export interface RefObject<T> {
    current: T;
  }

  export function useState<S>(initialState: S | (() => S)): [S, Dispatch<SetStateAction<S>>];
  export function useEffect(effect: EffectCallback, deps?: DependencyList): void;
  export function useRef<T>(initialValue: T): RefObject<T>;
  export function useCallback<T extends Function>(callback: T, deps: DependencyList): T;

  export namespace JSX {
    interface Element extends ReactElement<any, any> {}
    interface ElementClass extends Component<any> {}
    interface ElementAttributesProperty {
      props: {};
    }
    interface ElementChildrenAttribute {
      children: {};
    }
    interface IntrinsicAttributes {
      key?: Key | null | undefined;
    }
    interface IntrinsicElements {}
  }
}

declare module 'react/jsx-runtime' {
  import { JSX as ReactJSX, ReactElement } from 'react';
  export import JSX = ReactJSX;
  export const Fragment: unique symbol;
  export function jsx(type: unknown, props: unknown, key?: unknown): ReactElement;
  export function jsxs(type: unknown, props: unknown, key?: unknown): ReactElement;
}
