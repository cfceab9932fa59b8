// Lists every declaration the TypeScript look-alikes offer, one line each (comments dropped,
// whitespace collapsed), so a change to a look-alike shows in review as a change to the committed
// list; test.sh fails until it is regenerated. Uses Debian's TypeScript compiler API.
//   NODE_PATH=/usr/share/nodejs node ts-declarations.js <out file> <.d.ts files…>
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const [out, ...files] = process.argv.slice(2);
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
const lines = [];
const oneLine = (node, source) => printer.printNode(ts.EmitHint.Unspecified, node, source).replace(/\s+/g, ' ').trim();

for (const file of files.sort()) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2020, true);
  lines.push(`file ${path.basename(file)}`);
  for (const statement of source.statements) {
    if (ts.isModuleDeclaration(statement) && ts.isStringLiteral(statement.name) && statement.body) {
      lines.push(`  module '${statement.name.text}'`);
      for (const inner of statement.body.statements) lines.push(`    ${oneLine(inner, source)}`);
    } else {
      lines.push(`  ${oneLine(statement, source)}`);
    }
  }
}
fs.writeFileSync(out, lines.join('\n') + '\n');
