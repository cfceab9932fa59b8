// The app's Podfile: DropTrack's pods are not on CocoaPods trunk, so the Podfile names where they
// are (`:path =>` a folder holding their podspecs). The app's target gets the pods DropTrackExpo
// depends on (autolinking adds DropTrackExpo itself but cannot know where its dependencies are),
// and the widget extension's target gets DropTrackWidgets and what it depends on. Each block sits
// between markers, so a second prebuild replaces it instead of adding another.
import { DropTrackPluginError } from './transforms';

/** What the Podfile blocks say: the app's target, the extension's (if generated), the pods' folder. */
export interface PodfilePlan {
  appTarget: string;
  widgetTarget?: string;
  /** The folder with DropTrack's podspecs, relative to ios/ (where the Podfile is) or absolute. */
  podsPath: string;
}

/** The pods DropTrackExpo depends on, dependencies first (DropTrackExpo.podspec and the root podspecs). */
export const appPods = ['DropTrackSHA256', 'DropTrackContract', 'DropTrackLive'];
/** The pods the widget extension compiles (DropTrackWidgets.podspec and its dependencies, transitively: its
 * button's intent is DropTrackLive's). */
export const widgetPods = ['DropTrackSHA256', 'DropTrackContract', 'DropTrackLive', 'DropTrackWidgets'];

const begin = (tag: string) => `# @generated begin ${tag} (droptrack-expo's config plugin; do not edit)`;
const end = (tag: string) => `# @generated end ${tag}`;

function rubyString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Removes a marked block (with its lines) if there is one. */
function withoutBlock(contents: string, tag: string): string {
  const lines = contents.split('\n');
  const start = lines.findIndex((line) => line.trim() === begin(tag));
  const stop = lines.findIndex((line, index) => index > start && line.trim() === end(tag));
  if (start < 0 || stop < 0) return contents;
  lines.splice(start, stop - start + 1);
  return lines.join('\n');
}

function podLines(pods: string[], podsPath: string, indent: string): string[] {
  return pods.map((pod) => `${indent}pod ${rubyString(pod)}, :path => ${rubyString(podsPath)}`);
}

/** The Podfile with DropTrack's blocks in place (added, or replaced when already there). */
export function applyPodfile(contents: string, plan: PodfilePlan): string {
  let result = withoutBlock(withoutBlock(contents, 'droptrack-pods'), 'droptrack-widget');
  const lines = result.split('\n');
  const opening = new RegExp(`^\\s*target\\s+['"]${plan.appTarget.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]\\s+do\\s*$`);
  const targetLine = lines.findIndex((line) => opening.test(line));
  if (targetLine < 0) {
    throw new DropTrackPluginError(
      `the Podfile has no \`target '${plan.appTarget}' do\`; add ${appPods
        .map((pod) => `pod '${pod}', :path => '${plan.podsPath}'`)
        .join(', ')} to your app's target yourself`,
    );
  }
  // After use_expo_modules! when the target has it (Expo's template), else first in the target.
  const expoModules = lines.findIndex((line, index) => index > targetLine && /^\s*use_expo_modules!/.test(line));
  const after = expoModules >= 0 ? expoModules : targetLine;
  const indent = /^(\s*)/.exec(lines[after + 1] ?? '')?.[1] || '  ';
  const block = [`${indent}${begin('droptrack-pods')}`, ...podLines(appPods, plan.podsPath, indent), `${indent}${end('droptrack-pods')}`];
  lines.splice(after + 1, 0, ...block);
  result = lines.join('\n');
  if (plan.widgetTarget !== undefined) {
    // A target of its own, not nested in the app's: nested, it would inherit React Native's pods.
    const block = [
      begin('droptrack-widget'),
      `target ${rubyString(plan.widgetTarget)} do`,
      ...podLines(widgetPods, plan.podsPath, '  '),
      'end',
      end('droptrack-widget'),
    ];
    result = `${result.replace(/\n*$/, '')}\n\n${block.join('\n')}\n`;
  }
  return result;
}
