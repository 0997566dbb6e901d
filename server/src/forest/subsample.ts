/**
 * Row subsamples drawn without replacement, as scikit-learn's gradient boosting draws them: each
 * stage is grown on exactly int(subsample x N) rows (`_random_sample_mask(n_samples, n_inbag)`,
 * n_inbag = int(self.subsample * n_samples) in float64), so the draw narrows N to a few values.
 */

/** The N whose draw int(rate x N) is `drawn`, in increasing order. */
export function exactDrawRows(drawn: number, rate: number): number[] {
  const fits: number[] = [];
  if (!(rate > 0 && rate <= 1) || !(drawn >= 0)) return fits;
  for (let n = Math.max(drawn, Math.floor(drawn / rate) - 1); n <= Math.ceil((drawn + 1) / rate) + 1; n++) if (Math.floor(rate * n) === drawn) fits.push(n);
  return fits;
}
