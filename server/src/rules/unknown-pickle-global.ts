/**
 * `unknown-pickle-global`: the pickle names globals neither allowlisted nor known to be dangerous
 * (formats/pickle/tiers.ts). The model was read as usual (the linter calls nothing); loading the
 * file with Python imports those modules and, for the ones the pickle calls, runs their code.
 */
import type { ModelRead, NoTreeModelRead, UnknownGlobal } from '../formats/types';
import type { FindingDraft } from './types';
import { lead } from './message';

/** How many names a message lists before "and N more" (the finding's data has all of them). */
const LISTED = 4;

function list(names: string[]): string {
  const shown = names.slice(0, LISTED).join(', ');
  return names.length > LISTED ? `${shown} and ${names.length - LISTED} more` : shown;
}

export function unknownPickleGlobalDraft(read: ModelRead | NoTreeModelRead): FindingDraft | undefined {
  const unknown: UnknownGlobal[] = read.unknownGlobals ?? [];
  if (unknown.length === 0) return undefined;
  const called = unknown.filter((g) => g.called).map((g) => g.name);
  const held = unknown.filter((g) => !g.called).map((g) => g.name);
  const parts: string[] = [];
  if (called.length > 0) parts.push(`calls ${list(called)} when loaded (runs ${called.length === 1 ? 'its' : 'their'} code)`);
  if (held.length > 0) parts.push(`imports ${list(held)} as ${held.length === 1 ? 'a value' : 'values'} without calling ${held.length === 1 ? 'it' : 'them'}`);
  const n = unknown.length;
  return {
    message: lead(
      called.length > 0 ? 'Loading this pickle runs code of other modules: trust them first.' : 'Loading this pickle imports other modules: trust them first.',
      `This pickle names ${n === 1 ? 'a global' : `${n} globals`} the linter neither allows nor knows to be dangerous: ` +
        `loading it with Python ${parts.join(', and ')}. ` +
        `Nothing was run here and the file was read as usual; make sure you trust ${n === 1 ? 'that module' : 'those modules'}.`,
    ),
    data: { globals: unknown.map((g) => ({ name: g.name, called: g.called })) },
  };
}
