/**
 * The sidecar's `membership` entry (issue 14, item 4): validated by the sidecar's zod schema (and
 * so in dist/privacy.schema.json), resolved relative to the sidecar, read with the CLI's candidate
 * reader; a missing file, a wrong label or truth column is a problem stated in the sidecar's terms,
 * never an exception; the candidate file's bytes are part of the background job's cache key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivacySidecarSchema, readSidecar } from '../../server/src/recoverability/declared-groups';
import { readSidecarCandidates } from '../../server/src/membership/sidecar';
import { reconstructionKey, type ReconstructionRequest } from '../../server/src/jobs/reconstruction-job';
import { DIST } from '../support/paths';

const REQUEST: ReconstructionRequest = { budgetMs: 30_000, maxFileBytes: 1e9, groups: [], thresholds: { errorShare: 0.1, warningRows: 1 }, severities: {} };

function workspace(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-membership-sidecar-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'data'));
  const model = join(dir, 'm.joblib');
  writeFileSync(model, 'bytes');
  return { dir, model };
}

test('the schema takes the entry, additive to groups and disable, and rejects malformed ones', () => {
  const ok = PrivacySidecarSchema.safeParse({ membership: { candidates: 'data/holdout.csv', label: 'y', membersColumn: 'member' } });
  assert.ok(ok.success);
  assert.deepEqual(ok.data.membership, { candidates: 'data/holdout.csv', label: 'y', membersColumn: 'member' });
  assert.deepEqual(ok.data.groups, []);
  assert.equal(PrivacySidecarSchema.safeParse({}).data?.membership, undefined, 'optional');
  // No label: the candidates of an outlier detector (IsolationForest), whose rows have none.
  assert.deepEqual(PrivacySidecarSchema.safeParse({ membership: { candidates: 'a.csv' } }).data?.membership, { candidates: 'a.csv' });
  for (const bad of [{ label: 'y' }, { candidates: '', label: 'y' }, { candidates: 'a.csv', label: '' }, { candidates: 'a.csv', label: 'y', members: 'm' }, 'a.csv']) {
    assert.equal(PrivacySidecarSchema.safeParse({ membership: bad }).success, false, JSON.stringify(bad));
  }
});

test('the bundled JSON schema of the sidecar has the entry', (t) => {
  let text: string;
  try {
    text = readFileSync(join(DIST, 'privacy.schema.json'), 'utf8');
  } catch {
    t.skip('dist/privacy.schema.json not built (node scripts/bundle.mjs)');
    return;
  }
  const schema = JSON.parse(text);
  const membership = (schema.definitions?.PrivacySidecar ?? schema).properties.membership;
  assert.deepEqual(membership.required, ['candidates'], 'the label is optional (an outlier detector has none)');
  assert.ok(membership.properties.label);
  assert.ok(membership.properties.membersColumn);
});

test('the candidates are read relative to the sidecar; problems are stated, not thrown', async (t) => {
  const { dir, model } = workspace(t);
  assert.deepEqual(await readSidecarCandidates(model), { declared: false });
  writeFileSync(join(dir, 'm.privacy.json'), JSON.stringify({ membership: { candidates: 'data/c.csv', label: 'y', membersColumn: 'member' } }));
  let read = await readSidecarCandidates(model);
  assert.ok(read.declared && 'problem' in read);
  assert.match(read.problem, /cannot read data\/c\.csv \(ENOENT\)/);
  assert.doesNotMatch(read.problem, new RegExp(dir), 'no absolute path');

  writeFileSync(join(dir, 'data', 'c.csv'), 'a,b,y,member\n1,2,0,1\n3,4,1,0\n');
  read = await readSidecarCandidates(model);
  assert.ok(read.declared && 'file' in read, JSON.stringify(read));
  assert.equal(read.file.data.path, 'data/c.csv');
  assert.deepEqual(read.file.data.header, ['a', 'b', 'y'], 'the truth column is set aside');
  assert.deepEqual(read.file.members, [true, false]);

  writeFileSync(join(dir, 'data', 'c.csv'), 'a,b,y,member\n1,2,0,maybe\n');
  read = await readSidecarCandidates(model);
  assert.ok(read.declared && 'problem' in read);
  assert.match(read.problem, /'maybe' is not 1\/0/);

  writeFileSync(join(dir, 'm.privacy.json'), JSON.stringify({ membership: { candidates: 'data/c.csv', label: 'nope' } }));
  read = await readSidecarCandidates(model);
  assert.ok(read.declared && 'problem' in read);
  assert.match(read.problem, /has no column 'nope'/);

  // Without a label every column but the truth is a candidate's value (an outlier detector's rows).
  writeFileSync(join(dir, 'data', 'c.csv'), 'a,b,member\n1,2,1\n3,4,0\n');
  writeFileSync(join(dir, 'm.privacy.json'), JSON.stringify({ membership: { candidates: 'data/c.csv', membersColumn: 'member' } }));
  read = await readSidecarCandidates(model);
  assert.ok(read.declared && 'file' in read, JSON.stringify(read));
  assert.equal(read.file.data.labelColumn, undefined);
  assert.deepEqual(read.file.data.header, ['a', 'b']);

  // A malformed entry makes the sidecar invalid, as any other field does (readSidecar's problem).
  writeFileSync(join(dir, 'm.privacy.json'), JSON.stringify({ membership: { label: 'y' } }));
  assert.deepEqual(await readSidecarCandidates(model), { declared: false });
  assert.match((await readSidecar(model)).problems[0], /membership\.candidates/);
});

test('the background job\'s cache key follows the candidate file\'s bytes', async (t) => {
  const { dir, model } = workspace(t);
  writeFileSync(join(dir, 'm.privacy.json'), JSON.stringify({ membership: { candidates: 'data/c.csv', label: 'y' } }));
  const missing = await reconstructionKey(model, 'h', REQUEST);
  writeFileSync(join(dir, 'data', 'c.csv'), 'a,y\n1,0\n');
  const first = await reconstructionKey(model, 'h', REQUEST);
  assert.notEqual(first, missing, 'the file appeared');
  writeFileSync(join(dir, 'data', 'c.csv'), 'a,y\n2,0\n');
  assert.notEqual(await reconstructionKey(model, 'h', REQUEST), first, 'the file changed');
  writeFileSync(join(dir, 'data', 'c.csv'), 'a,y\n1,0\n');
  assert.equal(await reconstructionKey(model, 'h', REQUEST), first, 'the same bytes again');
});
