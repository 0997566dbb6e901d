/**
 * XGBoost's JSON writer prints a NaN float as a bare `NaN`, which JSON does not have: 1.7 writes it
 * as the split condition of every categorical split. Such tokens become the strings "N" / "-N" (same
 * length, so source positions stay right); the model reader then refuses the categorical split,
 * and a NaN anywhere a number is needed is reported as corrupt rather than read as a number.
 * Strings are skipped whole: the scikit-learn wrapper's parameters, saved as one JSON string, hold
 * `\"missing\": NaN`, which a bare replacement broke into invalid JSON ("corrupt", before stop 32).
 * Used for model files (./index.ts) and for the JSON inside pickled boosters (./snapshot.ts).
 */
export function parseJsonWithNaN(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!text.includes('NaN')) throw error;
    return JSON.parse(text.replace(/"(?:[^"\\]|\\.)*"|(-?)NaN\b/g, (token: string, minus: string | undefined) => (token.startsWith('"') ? token : `"${minus ?? ''}N"`)));
  }
}
