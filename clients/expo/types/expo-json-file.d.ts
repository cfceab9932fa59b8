// A look-alike of `@expo/json-file`'s JSON types (expo/expo, packages/@expo/json-file/src/JsonFile.ts),
// the package that really exports them: `@expo/config-plugins` only imports them. Simplified: the
// JsonFile class is absent (the plugin reads no JSON file through it).
declare module '@expo/json-file' {
  export type JSONValue = boolean | number | string | null | JSONArray | JSONObject;
  export interface JSONArray extends Array<JSONValue> {}
  export interface JSONObject {
    [key: string]: JSONValue | undefined;
  }
}
