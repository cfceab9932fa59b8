import * as fs from 'fs';
import * as path from 'path';

/** The repository root: `test.sh` says where it is. */
export const repositoryRoot = process.env.DROPTRACK_REPOSITORY ?? path.resolve(__dirname, '..', '..', '..', '..');

/** A committed contract vector, parsed. */
export function vector(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'vectors', name), 'utf8')) as Record<string, unknown>;
}
