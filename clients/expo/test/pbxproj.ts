// The tests' reader and writer of Xcode project files, standing in for the `xcode` package that
// Expo's prebuild parses the project with and writes it back with (no npm here). The reader gives
// the package's shapes (types/xcode.d.ts: sections of ids and `<id>_comment`s, quoted strings kept
// quoted, bare digits as numbers, `{ value, comment }` list entries); the writer prints every value
// as it is held, as the package's does. Its output is read again by an independent reader
// (mod-pbxproj, tools/check_xcode_project.py) in test.sh.
import * as fs from 'fs';
import type { PBXDictionary, PBXProjectHash, PBXValue, XcodeProject } from 'xcode';

class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  /** Goes on reading at `offset` (after the head comment). */
  seek(offset: number): void {
    this.at = offset;
  }

  fail(what: string): never {
    const line = this.text.slice(0, this.at).split('\n').length;
    throw new Error(`project.pbxproj line ${line}: ${what}`);
  }

  skip(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at += 1;
  }

  startsWith(prefix: string): boolean {
    return this.text.startsWith(prefix, this.at);
  }

  expect(token: string): void {
    this.skip();
    if (!this.startsWith(token)) this.fail(`expected '${token}'`);
    this.at += token.length;
  }

  /** `/* text *\/` after a key or value, or undefined. Section markers are not comments. */
  comment(): string | undefined {
    this.skip();
    if (!this.startsWith('/*') || this.startsWith('/* Begin ') || this.startsWith('/* End ')) return undefined;
    const close = this.text.indexOf('*/', this.at);
    if (close < 0) this.fail('unterminated comment');
    const body = this.text.slice(this.at + 2, close).trim();
    this.at = close + 2;
    return body;
  }

  key(): string {
    this.skip();
    if (this.startsWith('"')) return this.quoted();
    const match = /^[A-Za-z0-9_.]+/.exec(this.text.slice(this.at, this.at + 200));
    if (match === null) this.fail('expected a key');
    this.at += match[0].length;
    return match[0];
  }

  quoted(): string {
    let end = this.at + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    if (end >= this.text.length) this.fail('unterminated string');
    const raw = this.text.slice(this.at, end + 1);
    this.at = end + 1;
    return raw;
  }

  value(): PBXValue {
    this.skip();
    if (this.startsWith('{')) return this.dictionary();
    if (this.startsWith('(')) return this.list();
    if (this.startsWith('"')) return this.quoted();
    const start = this.at;
    while (this.at < this.text.length && !';,\n'.includes(this.text[this.at]!) && !this.startsWith('/*')) this.at += 1;
    const raw = this.text.slice(start, this.at);
    // Digits alone, ending right at a terminator, are a number (the grammar's IntegerValue).
    if (/^\d+$/.test(raw) && ';,\n'.includes(this.text[this.at] ?? '')) return parseInt(raw, 10);
    if (raw.trim() === '') this.fail('expected a value');
    return raw.trim();
  }

  list(): PBXValue[] {
    this.expect('(');
    const items: PBXValue[] = [];
    for (;;) {
      this.skip();
      if (this.startsWith(')')) break;
      const item = this.value();
      const comment = this.comment();
      items.push(comment === undefined ? item : { value: String(item), comment });
      this.skip();
      if (this.startsWith(',')) this.at += 1;
    }
    this.at += 1;
    return items;
  }

  dictionary(): PBXDictionary {
    this.expect('{');
    const result: PBXDictionary = {};
    for (;;) {
      this.skip();
      if (this.startsWith('}')) break;
      const section = /^\/\* Begin (\w+) section \*\//.exec(this.text.slice(this.at, this.at + 200));
      if (section !== null) {
        this.at += section[0].length;
        const name = section[1]!;
        const entries: PBXDictionary = (result[name] as PBXDictionary | undefined) ?? {};
        this.entries(entries, `/* End ${name} section */`);
        result[name] = entries;
        continue;
      }
      this.entry(result);
    }
    this.at += 1;
    return result;
  }

  entries(into: PBXDictionary, until: string): void {
    for (;;) {
      this.skip();
      if (this.startsWith(until)) {
        this.at += until.length;
        return;
      }
      this.entry(into);
    }
  }

  entry(into: PBXDictionary): void {
    const key = this.key();
    const keyComment = this.comment();
    this.expect('=');
    const value = this.value();
    const valueComment = this.comment();
    this.expect(';');
    into[key] = value;
    const comment = keyComment ?? valueComment;
    if (comment !== undefined) into[`${key}_comment`] = comment;
  }
}

/** Reads a project file into the `xcode` package's `hash`. */
export function parsePbxproj(text: string): PBXProjectHash {
  const reader = new Reader(text);
  let headComment: string | undefined;
  const head = /^\/\/(.*)\n/.exec(text);
  if (head !== null) {
    headComment = head[1]!.trim();
    reader.seek(head[0].length);
  }
  const project = reader.dictionary() as unknown as PBXProjectHash['project'];
  return headComment === undefined ? { project } : { headComment, project };
}

const isComment = (key: string) => key.endsWith('_comment');

function scalar(key: string, value: PBXValue, owner: PBXDictionary): string {
  const comment = owner[`${key}_comment`];
  return typeof comment === 'string' ? `${String(value)} /* ${comment} */` : String(value);
}

function listItem(item: PBXValue, indent: string): string {
  if (typeof item === 'object' && !Array.isArray(item) && typeof item.value === 'string' && typeof item.comment === 'string') {
    return `${item.value} /* ${item.comment} */`;
  }
  if (typeof item === 'object' && !Array.isArray(item)) return `{\n${body(item as PBXDictionary, indent + '\t')}${indent}}`;
  return String(item);
}

function body(dictionary: PBXDictionary, indent: string): string {
  let out = '';
  for (const [key, value] of Object.entries(dictionary)) {
    if (isComment(key) || value === undefined) continue;
    if (Array.isArray(value)) {
      out += `${indent}${key} = (\n${value.map((item) => `${indent}\t${listItem(item, indent + '\t')},\n`).join('')}${indent});\n`;
    } else if (typeof value === 'object') {
      out += `${indent}${key} = {\n${body(value as PBXDictionary, indent + '\t')}${indent}};\n`;
    } else {
      out += `${indent}${key} = ${scalar(key, value, dictionary)};\n`;
    }
  }
  return out;
}

function inline(dictionary: PBXDictionary): string {
  return Object.entries(dictionary)
    .filter(([key, value]) => !isComment(key) && value !== undefined)
    .map(([key, value]) => {
      if (Array.isArray(value)) return `${key} = (${value.map((item) => `${String(item)}, `).join('')}); `;
      if (typeof value === 'object') return `${key} = {${inline(value as PBXDictionary)}}; `;
      return `${key} = ${scalar(key, value!, dictionary)}; `;
    })
    .join('');
}

/** Prints a `hash` as a project file, each object section between its Begin and End markers. */
export function writePbxproj(hash: PBXProjectHash): string {
  let out = hash.headComment === undefined ? '' : `// ${hash.headComment}\n`;
  out += '{\n';
  for (const [key, value] of Object.entries(hash.project)) {
    if (isComment(key) || value === undefined) continue;
    if (key !== 'objects') {
      out += body({ [key]: value as PBXValue, [`${key}_comment`]: (hash.project as unknown as PBXDictionary)[`${key}_comment`] }, '\t');
      continue;
    }
    out += '\tobjects = {\n';
    for (const [isa, section] of Object.entries(hash.project.objects)) {
      out += `\n/* Begin ${isa} section */\n`;
      for (const [id, object] of Object.entries(section)) {
        if (isComment(id) || typeof object === 'string') continue;
        const comment = section[`${id}_comment`];
        const name = typeof comment === 'string' ? `${id} /* ${comment} */` : id;
        out +=
          isa === 'PBXBuildFile' || isa === 'PBXFileReference'
            ? `\t\t${name} = {${inline(object)}};\n`
            : `\t\t${name} = {\n${body(object, '\t\t\t')}\t\t};\n`;
      }
      out += `/* End ${isa} section */\n`;
    }
    out += '\t};\n';
  }
  return `${out}}\n`;
}

/** A project as Expo's `withXcodeProject` hands it over: parsed from the file, written back by `save`. */
export function openProject(file: string): XcodeProject & { save(): void } {
  let counter = 0;
  const project = {
    filepath: file,
    hash: parsePbxproj(fs.readFileSync(file, 'utf8')),
    parseSync() {
      project.hash = parsePbxproj(fs.readFileSync(file, 'utf8'));
      return project;
    },
    writeSync: () => writePbxproj(project.hash),
    allUuids: () =>
      Object.values(project.hash.project.objects).flatMap((section) => Object.keys(section).filter((key) => !isComment(key))),
    // Ids in Xcode's form, counted rather than random so a failing run can be repeated.
    generateUuid(): string {
      const taken = new Set(project.allUuids());
      let id: string;
      do {
        counter += 1;
        id = `D7000000000000${counter.toString(16).toUpperCase().padStart(10, '0')}`;
      } while (taken.has(id));
      return id;
    },
    save: () => fs.writeFileSync(file, project.writeSync()),
  };
  return project as unknown as XcodeProject & { save(): void };
}
