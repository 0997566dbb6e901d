/**
 * XGBoost keeps base_score and the training parameters as float32. Its JSON writer prints them as
 * the shortest decimal with the same float32 value ("5E-1", "0.300000012" in a Config): the value
 * the user passed. Readers of other forms (a float32 in the legacy binary format, a Config's nine
 * digits) turn them into that same decimal, so every form of one model gives one number.
 */
export function float32Decimal(v: unknown): number | undefined {
  const x = typeof v === 'string' && v.trim() !== '' ? Number(v) : typeof v === 'number' ? v : NaN;
  if (!Number.isFinite(x)) return undefined;
  const f = Math.fround(x);
  for (let digits = 1; digits <= 9; digits++) {
    const shorter = Number(x.toPrecision(digits));
    if (Math.fround(shorter) === f) return shorter;
  }
  return x;
}
