// `npm pack` (prepack): copies DropTrack's Android library (clients/android) into the package as
// android-library/, which android/build.gradle compiles into this module when the package is
// installed from npm. In the repository the module reads ../android directly and nothing is copied.
//   node scripts/copy-android-library.js [--to <dir>]     (default: ./android-library)
'use strict';
const fs = require('fs');
const path = require('path');

const packageRoot = path.resolve(__dirname, '..');
const library = path.resolve(packageRoot, '..', 'android');
const flag = process.argv.indexOf('--to');
const target = flag >= 0 ? path.resolve(process.argv[flag + 1]) : path.join(packageRoot, 'android-library');

if (!fs.existsSync(path.join(library, 'src', 'main', 'AndroidManifest.xml'))) {
  console.error(`copy-android-library: no Android library at ${library}; pack from a DropTrack checkout`);
  process.exit(1);
}
fs.rmSync(target, { recursive: true, force: true });
fs.mkdirSync(target, { recursive: true });
fs.cpSync(path.join(library, 'src', 'main'), path.join(target, 'src', 'main'), { recursive: true });
fs.copyFileSync(path.join(library, 'consumer-rules.pro'), path.join(target, 'consumer-rules.pro'));
console.log(`copy-android-library: ${path.relative(process.cwd(), target) || '.'} has the library's sources, manifest and resources`);
