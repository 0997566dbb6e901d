/** Paths of the repository, from compiled tests in out/test/... */
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../../..');
export const FIXTURES = resolve(REPO_ROOT, 'test/fixtures');
export const EXAMPLES = resolve(REPO_ROOT, 'examples');
export const DIST = resolve(REPO_ROOT, 'dist');
