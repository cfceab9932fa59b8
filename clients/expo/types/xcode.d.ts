// A look-alike of the part of the `xcode` package (apache/cordova-node-xcode, 3.0.x: index.js,
// lib/pbxProject.js, lib/parser/pbxproj.pegjs) that DropTrack's config plugin uses: the project
// Expo's `withXcodeProject` hands a mod. The package ships no types, so these follow its JavaScript.
// Simplified: only the members the plugin calls are declared (the ~120 add…/remove… helpers are
// left out: the plugin edits `hash` itself), and the parsed values get a type, which the package
// leaves untyped, written from its grammar:
//   - a section of `objects` maps each object's id to the object and `<id>_comment` to its comment;
//   - a quoted string keeps its quotes (`"$(inherited)"` is read as the 15 characters with quotes),
//     a bare run of digits ending at `;`, `,` or a line end is a number, anything else a string;
//   - `key = value /* comment */;` becomes `key` and `key_comment`; a list entry with a comment
//     becomes `{ value, comment }`.
// The writer (pbxWriter.js) prints every value as it is, so a value that needs quotes must hold them.
declare module 'xcode' {
  /** An object's id: 24 upper-case hex digits. */
  export type UUID = string;

  /** A list entry read with its comment, `value /* comment *\/`. */
  export interface CommentedValue {
    value: string;
    comment: string;
  }

  export type PBXValue = string | number | PBXValue[] | CommentedValue | PBXDictionary;

  export interface PBXDictionary {
    [key: string]: PBXValue | undefined;
  }

  /** One object of the project (a target, a file, a build phase…), by its `isa`. */
  export interface PBXObject extends PBXDictionary {
    isa: string;
  }

  /** A `/* Begin <isa> section *\/`: ids to objects, and `<id>_comment` to their comments. */
  export type PBXSection = Record<UUID, PBXObject | string>;

  export interface PBXProjectHash {
    headComment?: string;
    project: {
      archiveVersion: number;
      classes: PBXDictionary;
      objectVersion: number;
      objects: Record<string, PBXSection>;
      rootObject: UUID;
      rootObject_comment?: string;
    };
  }

  /** `lib/pbxProject.js`: a project file, parsed into `hash`. */
  export class XcodeProject {
    constructor(filename: string);
    /** The project file's absolute path. */
    filepath: string;
    /** The parsed file; set by `parse` or `parseSync`. */
    hash: PBXProjectHash;
    parseSync(): this;
    /** The file's text, every value printed as it is held. */
    writeSync(options?: { omitEmptyValues?: boolean }): string;
    /** Every object id in the project. */
    allUuids(): UUID[];
    /** A new id, unused in the project. */
    generateUuid(): UUID;
  }

  /** `index.js`: `exports.project`, callable with or without `new`. */
  export function project(filename: string): XcodeProject;
}
