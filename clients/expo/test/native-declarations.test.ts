import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { test } from 'node:test';
import { repositoryRoot } from './support';

// The module's contract (test/contract/cases.json: `functions` and `events`) against what each side
// declares, read from the source as Expo's module registry reads the definitions: the TypeScript
// interface (src/DropTrackNativeModule.ts), the Kotlin module (Function/AsyncFunction in
// android/.../DropTrackModule.kt) and the Swift module (ios/DropTrackModule.swift). Each must declare
// exactly the contract's functions, each synchronous or asynchronous as listed, with its arguments'
// types and nullability, and exactly its events. What each function does is checked by the cases:
// contract.test.ts (JavaScript), ContractCasesTests.kt (Android), ContractCasesTests.swift (iOS).

interface Contract {
  functions: { sync: string[]; async: string[]; arguments: Record<string, string[]> };
  events: { names: string[] };
}

/** A declared function: whether it answers synchronously, and its argument types in the contract's words. */
interface Declared {
  sync: boolean;
  args: string[];
}

const expo = path.join(repositoryRoot, 'clients', 'expo');
const read = (...parts: string[]) => fs.readFileSync(path.join(expo, ...parts), 'utf8');
const contract = JSON.parse(read('test', 'contract', 'cases.json')) as Contract;

/** Splits `a: T, b: Map<K, V>?` at the commas between parameters, not inside a type. */
function parameters(list: string): string[] {
  const trimmed = list.trim().replace(/,$/, '');
  return trimmed.length === 0 ? [] : trimmed.split(/,\s*(?=[\w_]+\s*:)/).map((parameter) => parameter.slice(parameter.indexOf(':') + 1).trim());
}

function kotlinType(type: string): string {
  const optional = type.endsWith('?') ? '?' : '';
  const base = type.replace(/\?$/, '');
  if (base === 'String') return `string${optional}`;
  if (base === 'Double') return `number${optional}`;
  if (base === 'Boolean') return `boolean${optional}`;
  if (/^Map<String, Any\?>$/.test(base)) return `object${optional}`;
  return `unknown Kotlin type ${type}`;
}

function swiftType(type: string): string {
  const optional = type.endsWith('?') ? '?' : '';
  const base = type.replace(/\?$/, '');
  if (base === 'String') return `string${optional}`;
  if (base === 'Double') return `number${optional}`;
  if (base === 'Bool') return `boolean${optional}`;
  if (/^\[String: Any\]$/.test(base)) return `object${optional}`;
  return `unknown Swift type ${type}`;
}

function typeScriptType(type: string): string {
  const optional = / \| null$/.test(type) ? '?' : '';
  const base = type.replace(/ \| null$/, '');
  if (base === 'string') return `string${optional}`;
  if (base === 'number') return `number${optional}`;
  if (base === 'boolean') return `boolean${optional}`;
  if (base === 'DeliveryState') return `object${optional}`;
  return `unknown TypeScript type ${type}`;
}

/** `Function("name") { a: T, b: U -> …}` and `AsyncFunction(…)`; `{ -> …}` takes none. */
export function kotlinDeclarations(source: string): Map<string, Declared> {
  const found = new Map<string, Declared>();
  for (const match of source.matchAll(/\b(AsyncFunction|Function)\("(\w+)"\)\s*\{([^{}]*?)->/g)) {
    found.set(match[2]!, { sync: match[1] === 'Function', args: parameters(match[3]!).map(kotlinType) });
  }
  return found;
}

/** `Function("name") { (a: T, b: U) -> R in …}` and `AsyncFunction(…)`. */
export function swiftDeclarations(source: string): Map<string, Declared> {
  const found = new Map<string, Declared>();
  for (const match of source.matchAll(/\b(AsyncFunction|Function)\("(\w+)"\)\s*\{\s*\(([^)]*)\)/g)) {
    found.set(match[2]!, { sync: match[1] === 'Function', args: parameters(match[3]!).map(swiftType) });
  }
  return found;
}

/** The members of `interface DropTrackNativeModule`, but `addListener` (Expo's, not the module's). */
export function typeScriptDeclarations(source: string): Map<string, Declared> {
  const body = source.slice(source.indexOf('export interface DropTrackNativeModule'));
  const found = new Map<string, Declared>();
  for (const match of body.matchAll(/^ {2}(\w+)\(([^)]*)\):\s*([^;]+);/gm)) {
    found.set(match[1]!, { sync: !match[3]!.startsWith('Promise<'), args: parameters(match[2]!).map(typeScriptType) });
  }
  return found;
}

/** `Events("a", "b")` and every `sendEvent("name"` the module makes. */
function events(source: string): { declared: string[]; sent: string[] } {
  const declaration = /\bEvents\(([^)]*)\)/.exec(source);
  const declared = declaration ? [...declaration[1]!.matchAll(/"(\w+)"/g)].map((name) => name[1]!) : [];
  const sent = [...new Set([...source.matchAll(/sendEvent\("(\w+)"/g)].map((name) => name[1]!))];
  return { declared, sent };
}

function expected(): Map<string, Declared> {
  const all = new Map<string, Declared>();
  for (const [name, args] of Object.entries(contract.functions.arguments)) {
    const sync = contract.functions.sync.includes(name);
    assert.ok(sync || contract.functions.async.includes(name), `cases.json lists ${name}'s arguments but neither as sync nor async`);
    all.set(name, { sync, args });
  }
  assert.deepEqual([...all.keys()].sort(), [...contract.functions.sync, ...contract.functions.async].sort(), 'every function has its arguments');
  return all;
}

function assertSameDeclarations(side: string, declared: Map<string, Declared>) {
  const contractDeclarations = expected();
  assert.deepEqual([...declared.keys()].sort(), [...contractDeclarations.keys()].sort(), `${side} declares exactly the contract's functions`);
  for (const [name, want] of contractDeclarations) {
    assert.deepEqual(declared.get(name), want, `${side}'s ${name}: ${want.sync ? 'Function' : 'AsyncFunction'} with (${want.args.join(', ')})`);
  }
}

const kotlinSource = read('android', 'src', 'main', 'java', 'com', 'droptrack', 'expo', 'DropTrackModule.kt');
const swiftSource = read('ios', 'DropTrackModule.swift');

test('the TypeScript interface DropTrackNativeModule declares exactly the contract', () => {
  assertSameDeclarations('DropTrackNativeModule.ts', typeScriptDeclarations(read('src', 'DropTrackNativeModule.ts')));
  const types = read('src', 'DropTrack.types.ts');
  const eventType = types.slice(types.indexOf('export type DropTrackEvents'));
  const typed = [...eventType.slice(0, eventType.indexOf('};')).matchAll(/^ {2}(\w+):/gm)].map((name) => name[1]!);
  assert.deepEqual(typed, contract.events.names);
});

test('the Kotlin module (clients/expo/android) declares exactly the contract, and sends only its events', () => {
  assertSameDeclarations('DropTrackModule.kt', kotlinDeclarations(kotlinSource));
  const { declared, sent } = events(kotlinSource);
  assert.deepEqual(declared, contract.events.names);
  for (const name of sent) assert.ok(declared.includes(name), `DropTrackModule.kt sends ${name}, which it does not declare`);
  // onPush and onToken come from the library's events; the module must send them, not only declare them.
  assert.deepEqual(sent.sort(), [...contract.events.names].sort(), 'DropTrackModule.kt sends every event');
});

test('the Swift module (clients/expo/ios) declares exactly the contract', () => {
  assertSameDeclarations('DropTrackModule.swift', swiftDeclarations(swiftSource));
  assert.deepEqual(events(swiftSource).declared, contract.events.names);
});

test('the readers find what they should in a sample, and see a missing or mistyped declaration', () => {
  const kotlin = kotlinDeclarations(
    'Function("isSupported") { -> true }\nAsyncFunction("endDelivery") { activityId: String, state: Map<String, Any?>?, seconds: Double? ->\n x }',
  );
  assert.deepEqual(kotlin.get('isSupported'), { sync: true, args: [] });
  assert.deepEqual(kotlin.get('endDelivery'), { sync: false, args: ['string', 'object?', 'number?'] });
  const swift = swiftDeclarations('AsyncFunction("configure") {\n (serverUrl: String, deviceId: String?) async throws in }\nFunction("x") { () -> Bool in true }');
  assert.deepEqual(swift.get('configure'), { sync: false, args: ['string', 'string?'] });
  assert.deepEqual(swift.get('x'), { sync: true, args: [] });
  assert.throws(() => assertSameDeclarations('a sample', kotlin), /declares exactly the contract's functions/);
  const mistyped = kotlinDeclarations(kotlinSource.replace('dismissAfterSeconds: Double?', 'dismissAfterSeconds: Double'));
  assert.throws(() => assertSameDeclarations('a mistyped sample', mistyped), /endDelivery/);
});
