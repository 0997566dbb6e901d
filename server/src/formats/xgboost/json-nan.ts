/**
 * XGBoost's JSON writers print floats JSON does not have as bare tokens: the model writer `NaN`
 * (1.7 writes it as the split condition of every categorical split) and `Infinity` (a split
 * `x < inf`, as a model of XGBoost before 1.0 re-saved by 1.7.4 has), the JSON dump `inf` and
 * `nan`. Outside strings they are rewritten before parsing:
 *  - `NaN`, `nan` become the strings "N" / "-N" (same length, so source positions stay right); the
 *    model reader then refuses the categorical split, and a NaN anywhere a number is needed is
 *    reported as corrupt rather than read as a number;
 *  - `Infinity` becomes `1e999999` (same length), which JSON reads as Infinity; the dump's `inf`
 *    becomes `1e999`, two characters longer (positions after it on its line shift; the dump's
 *    `"nodeid"`, which locations point at, comes before it).
 * Strings are skipped whole: the scikit-learn wrapper's parameters, saved as one JSON string, hold
 * `\"missing\": NaN`, which a bare replacement broke into invalid JSON ("corrupt", before stop 32).
 * Used for model files (./index.ts), JSON dumps (./dumps.ts) and the JSON inside pickled boosters
 * (./snapshot.ts).
 */
export function parseJsonWithNaN(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!/NaN|nan|Infinity|inf/.test(text)) throw error;
    return JSON.parse(withFiniteTokens(text));
  }
}

/** The text with every bare non-finite token rewritten as above (strings untouched). */
export function withFiniteTokens(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|(-?)\b(NaN|nan|Infinity|inf)\b/g, (token: string, minus: string | undefined, word: string | undefined) => {
    if (token.startsWith('"') || word === undefined) return token;
    const sign = minus ?? '';
    if (word === 'NaN' || word === 'nan') return `"${sign}N"`;
    return `${sign}${word === 'Infinity' ? '1e999999' : '1e999'}`;
  });
}
