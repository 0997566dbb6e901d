/**
 * Hostile pickles of every opcode family that reaches a callable (GLOBAL, STACK_GLOBAL, INST,
 * OBJ, REDUCE, NEWOBJ, NEWOBJ_EX, BUILD, memo indirection, Python 2 names, copyreg and numpy
 * reconstructors, nested pickles), alone, truncated after the call, and hidden after a valid
 * forest in .pkl and joblib files (plain, zlib, gzip). All are crafted here byte by byte
 * (test/support/pickle-bytes.ts): hostile by construction, not made by a library.
 *
 * Each payload that Python can run without harm opens (creates) a marker file. The linter must
 * report every one as unsafe-pickle and never create a marker; then, where Debian's python3 is
 * present, Python's own unpickler loads the open() family and does create the marker, which shows
 * the corpus is really hostile and not merely odd. Odd but harmless opcodes (persistent ids,
 * extension codes, out-of-band buffers) must come out as a clear finding, never a model.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync, inflateSync } from 'node:zlib';
import { FIXTURES } from '../support/paths';
import { concat, lintChecked, rulesOf } from '../support/fuzz';
import {
  BUILD, EMPTY_DICT, EMPTY_TUPLE, MARK, MEMOIZE, NEWOBJ, NEWOBJ_EX, NONE, OBJ, PROTO, REDUCE, STACK_GLOBAL, STOP, TUPLE, TUPLE1, TUPLE2,
  frame, global, inst, pk, sbb, sbu, stackGlobal, unicode,
} from '../support/pickle-bytes';

const PYTHON = '/usr/bin/python3';
let dir: string;
const marker = (name: string) => join(dir, `marker-${name}`);

interface Hostile {
  name: string;
  bytes: Uint8Array;
  /** Python runs it harmlessly (opens the marker) and the test checks it does. */
  verify?: boolean;
}

/** `builtins.open(marker, 'w')` through each opcode family that can call it. */
function openFamily(): Hostile[] {
  const m = (n: string) => marker(n);
  return [
    { name: 'p0-global-reduce', bytes: pk(global('builtins', 'open'), MARK, unicode(m('p0-global-reduce')), unicode('w'), TUPLE, REDUCE, STOP), verify: true },
    { name: 'p0-inst', bytes: pk(MARK, unicode(m('p0-inst')), unicode('w'), inst('builtins', 'open'), STOP), verify: true },
    { name: 'p1-obj', bytes: pk(MARK, global('builtins', 'open'), unicode(m('p1-obj')), unicode('w'), OBJ, STOP), verify: true },
    { name: 'p2-global-tuple2', bytes: pk(PROTO(2), global('builtins', 'open'), unicode(m('p2-global-tuple2')), unicode('w'), TUPLE2, REDUCE, STOP), verify: true },
    { name: 'p2-py2-name', bytes: pk(PROTO(2), global('__builtin__', 'open'), unicode(m('p2-py2-name')), unicode('w'), TUPLE2, REDUCE, STOP), verify: true },
    { name: 'p4-stack-global-frame', bytes: pk(PROTO(4), frame(pk(stackGlobal('builtins', 'open'), sbu(m('p4-stack-global-frame')), sbu('w'), TUPLE2, REDUCE, STOP))), verify: true },
    {
      // The names come from the memo: no GLOBAL text anywhere near the call.
      name: 'p4-memo-names',
      bytes: pk(PROTO(4), sbu('builtins'), MEMOIZE, sbu('open'), MEMOIZE, 0x30, 0x30, 0x68, 0, 0x68, 1, STACK_GLOBAL, MEMOIZE, 0x30, 0x68, 2, sbu(m('p4-memo-names')), sbu('w'), TUPLE2, REDUCE, STOP),
      verify: true,
    },
    { name: 'io-open', bytes: pk(global('io', 'open'), MARK, unicode(m('io-open')), unicode('w'), TUPLE, REDUCE, STOP), verify: true },
    {
      // Python runs REDUCE as soon as it reads it: a pickle cut short after the call still ran it.
      name: 'truncated-after-call',
      bytes: pk(global('builtins', 'open'), MARK, unicode(m('truncated-after-call')), unicode('w'), TUPLE, REDUCE, MARK),
      verify: true,
    },
  ];
}

/** Families whose call Python should not make here (commands, imports); the linter must still refuse them. */
function otherFamilies(): Hostile[] {
  const touch = `touch ${marker('never')}`;
  return [
    { name: 'os-system', bytes: pk(global('os', 'system'), MARK, unicode(touch), TUPLE, REDUCE, STOP) },
    { name: 'posix-system', bytes: pk(PROTO(2), global('posix', 'system'), unicode(touch), TUPLE1, REDUCE, STOP) },
    { name: 'newobj', bytes: pk(PROTO(2), global('subprocess', 'Popen'), unicode(touch), TUPLE1, NEWOBJ, STOP) },
    { name: 'newobj-ex', bytes: pk(PROTO(4), stackGlobal('subprocess', 'Popen'), EMPTY_TUPLE, EMPTY_DICT, NEWOBJ_EX, STOP) },
    { name: 'build-setstate', bytes: pk(PROTO(2), global('os', 'system'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, BUILD, STOP) },
    { name: 'global-as-value', bytes: pk(PROTO(2), global('os', 'system'), STOP) },
    { name: 'copyreg-reconstructor', bytes: pk(global('copyreg', '_reconstructor'), MARK, global('subprocess', 'Popen'), global('builtins', 'object'), NONE, TUPLE, REDUCE, STOP) },
    { name: 'py2-copy-reg', bytes: pk(global('copy_reg', '_reconstructor'), MARK, global('subprocess', 'Popen'), global('__builtin__', 'object'), NONE, TUPLE, REDUCE, STOP) },
    { name: 'nested-pickle-loads', bytes: pk(PROTO(3), global('pickle', 'loads'), sbb([...pk(global('os', 'system'), MARK, unicode(touch), TUPLE, REDUCE, STOP)]), TUPLE1, REDUCE, STOP) },
    { name: 'getattr', bytes: pk(global('builtins', 'getattr'), MARK, global('builtins', 'object'), unicode('__subclasses__'), TUPLE, REDUCE, STOP) },
    { name: 'main-module', bytes: pk(global('__main__', 'system'), MARK, unicode(touch), TUPLE, REDUCE, STOP) },
    { name: 'numpy-ufunc-reconstruct', bytes: pk(global('numpy.core', '_ufunc_reconstruct'), MARK, unicode('os'), unicode('system'), TUPLE, REDUCE, MARK, unicode(touch), TUPLE, REDUCE, STOP) },
    { name: 'eval', bytes: pk(PROTO(4), frame(pk(stackGlobal('builtins', 'eval'), sbu('print(1)'), TUPLE1, REDUCE, STOP))) },
    { name: 'exec-after-broken-frame', bytes: pk(PROTO(4), frame(pk(stackGlobal('builtins', 'exec'), sbu('print(1)'), TUPLE1, REDUCE), 2n ** 40n)) },
  ];
}

/** The pickle stream of a fixture (joblib zlib undone) and how to pack a stream the same way. */
function container(file: string): { stream: Uint8Array; pack: (s: Uint8Array) => Uint8Array } {
  const bytes = new Uint8Array(readFileSync(file));
  if (file.endsWith('.zlib.joblib')) return { stream: new Uint8Array(inflateSync(bytes)), pack: (s) => new Uint8Array(deflateSync(s)) };
  return { stream: bytes, pack: (s) => s };
}

/** A valid forest, then (optionally harmless pickles, then) a hostile pickle: what a second pickle.load runs. */
function trailing(): Hostile[] {
  const forests = [
    ['pkl', join(FIXTURES, 'sklearn', 'rf_nobootstrap.p2.pkl')],
    ['joblib', join(FIXTURES, 'sklearn', 'rf_compas.v14.joblib')],
    ['zlib-joblib', join(FIXTURES, 'sklearn', 'rf_compas.zlib.joblib')],
  ] as const;
  const out: Hostile[] = [];
  for (const [kind, file] of forests) {
    const { stream, pack } = container(file);
    const payload = (n: string) => pk(global('builtins', 'open'), MARK, unicode(marker(n)), unicode('w'), TUPLE, REDUCE, STOP);
    out.push({ name: `after-forest-${kind}`, bytes: pack(concat(stream, payload(`after-forest-${kind}`))), verify: kind === 'pkl' });
    const notes = concat(...Array.from({ length: 3 }, () => pk(PROTO(2), sbu('a note'), STOP)));
    out.push({ name: `after-forest-and-notes-${kind}`, bytes: pack(concat(stream, notes, payload(`after-forest-and-notes-${kind}`))), verify: kind === 'pkl' });
  }
  // gzip (joblib's other zlib-family codec) around a plain pickle and its hostile tail.
  const plain = new Uint8Array(readFileSync(join(FIXTURES, 'sklearn', 'rf_nobootstrap.p2.pkl')));
  const tail = pk(PROTO(2), global('posix', 'system'), unicode(`touch ${marker('never')}`), TUPLE1, REDUCE, STOP);
  out.push({ name: 'after-forest-gzip-joblib', bytes: new Uint8Array(gzipSync(concat(plain, tail))) });
  return out;
}

/** Opcodes Python refuses by default (no persistent_load, an empty extension registry, no buffers): odd, not hostile. */
function odd(): Hostile[] {
  return [
    { name: 'persid', bytes: pk('Pfile:/etc/passwd\n', STOP) },
    { name: 'binpersid', bytes: pk(PROTO(2), unicode('x'), 0x51, STOP) },
    { name: 'ext1', bytes: pk(PROTO(2), 0x82, 1, EMPTY_TUPLE, REDUCE, STOP) },
    { name: 'ext2', bytes: pk(PROTO(2), 0x83, 1, 2, STOP) },
    { name: 'ext4', bytes: pk(PROTO(2), 0x84, 1, 2, 3, 4, STOP) },
    { name: 'next-buffer', bytes: pk(PROTO(5), 0x97, 0x98, STOP) },
  ];
}

describe('fuzz: hostile pickles', () => {
  let hostile: Hostile[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mpl-hostile-'));
    hostile = [...openFamily(), ...otherFamilies(), ...trailing()];
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('every hostile pickle, trailing ones included, is unsafe-pickle; none runs', () => {
    assert.ok(hostile.length >= 30, `${hostile.length} hostile pickles`);
    for (const h of hostile) {
      for (const name of [`${h.name}.pkl`, `${h.name}.joblib`]) {
        const checked = lintChecked(h.bytes, name);
        assert.deepEqual(checked.failures, [], h.name);
        // Only `__main__` names (the loading script's own, which the VM builds as opaque objects):
        // unsafe-pickle all the same, and the rest of the file is read (here: no tree model).
        const want = h.name === 'main-module' ? ['unsafe-pickle', 'no-tree-model'] : ['unsafe-pickle'];
        assert.deepEqual(rulesOf(checked), want, `${h.name}: ${JSON.stringify(checked.report?.findings.map((f) => f.message))}`);
        assert.equal(checked.report?.model, null, h.name);
      }
    }
    for (const h of hostile) assert.ok(!existsSync(marker(h.name)), `${h.name} created its marker`);
    assert.ok(!existsSync(marker('never')));
  });

  test('odd opcodes (persistent ids, extension codes, buffers) give a finding, never a model', () => {
    for (const o of odd()) {
      const checked = lintChecked(o.bytes, `${o.name}.pkl`);
      assert.deepEqual(checked.failures, [], o.name);
      assert.equal(checked.report?.model, null, o.name);
      assert.ok(checked.report!.findings.length > 0, o.name);
    }
  });

  test('Python itself runs the open() family: the corpus is hostile, not just odd', { skip: !existsSync(PYTHON) && 'no /usr/bin/python3' }, () => {
    const verified = hostile.filter((h) => h.verify);
    assert.ok(verified.length >= 10);
    for (const h of verified) {
      assert.ok(!existsSync(marker(h.name)), `${h.name}: the marker exists before Python ran`);
      const file = join(dir, `${h.name}.pkl`);
      writeFileSync(file, h.bytes);
      // Every pickle in the file, as a loader that calls pickle.load again would; errors end the loop.
      const script = 'import pickle,sys\nf=open(sys.argv[1],"rb")\ntry:\n  while True: pickle.load(f)\nexcept Exception: pass\n';
      execFileSync(PYTHON, ['-c', script, file], { cwd: dir, stdio: 'ignore', timeout: 60_000 });
      assert.ok(existsSync(marker(h.name)), `${h.name}: Python did not open the marker`);
    }
  });
});
