/**
 * The baseline's inference model: L2-regularised logistic regression on standardised features,
 * fitted by Newton's method (iteratively reweighted least squares) with a fixed number of steps.
 * Deterministic, no dependency, a few dozen features at most.
 */
export interface LogisticModel {
  mean: number[];
  scale: number[];
  /** Intercept first, then one weight per feature. */
  weights: number[];
}

const L2 = 1e-2;
const STEPS = 25;

export function fitLogistic(rows: readonly number[][], labels: readonly boolean[]): LogisticModel {
  const d = rows[0]?.length ?? 0;
  const mean = new Array(d).fill(0);
  const scale = new Array(d).fill(0);
  for (const row of rows) row.forEach((v, j) => (mean[j] += v / rows.length));
  for (const row of rows) row.forEach((v, j) => (scale[j] += (v - mean[j]) ** 2 / rows.length));
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j]) || 1;
  const x = rows.map((row) => [1, ...row.map((v, j) => (v - mean[j]) / scale[j])]);
  const p = d + 1;
  const w = new Array(p).fill(0);
  for (let step = 0; step < STEPS; step++) {
    // Gradient and Hessian of the penalised negative log-likelihood (the intercept unpenalised).
    const grad = w.map((wj, j) => (j === 0 ? 0 : L2 * wj * rows.length));
    const hess = Array.from({ length: p }, (_, i) => Array.from({ length: p }, (_, j) => (i === j && i > 0 ? L2 * rows.length : 0)));
    x.forEach((xi, n) => {
      const mu = sigmoid(dot(w, xi));
      const r = mu - (labels[n] ? 1 : 0);
      const s = Math.max(mu * (1 - mu), 1e-9);
      for (let i = 0; i < p; i++) {
        grad[i] += r * xi[i];
        for (let j = 0; j <= i; j++) hess[i][j] += s * xi[i] * xi[j];
      }
    });
    for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) hess[i][j] = hess[j][i];
    const delta = solve(hess, grad);
    if (!delta) break;
    let moved = 0;
    for (let j = 0; j < p; j++) {
      w[j] -= delta[j];
      moved = Math.max(moved, Math.abs(delta[j]));
    }
    if (moved < 1e-8) break;
  }
  return { mean, scale, weights: w };
}

export function predictLogistic(model: LogisticModel, row: readonly number[]): number {
  let z = model.weights[0];
  for (let j = 0; j < row.length; j++) z += model.weights[j + 1] * ((row[j] - model.mean[j]) / model.scale[j]);
  return sigmoid(z);
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Gaussian elimination with partial pivoting; undefined when singular. */
function solve(a: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    if (Math.abs(m[pivot][c]) < 1e-12) return undefined;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}
