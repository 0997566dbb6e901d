/**
 * The HiGHS runtime (the `highs` package: HiGHS compiled to WebAssembly), loaded once per process
 * and reused, and the one way a reconstruction method gets it: `withHighs`.
 */
import loadHighsRuntime, { type Highs } from 'highs';

let runtime: Promise<Highs> | undefined;

export function loadHighs(): Promise<Highs> {
  runtime ??= loadHighsRuntime().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

/**
 * Forgets the loaded runtime after a fault inside WebAssembly (an abort leaves the module
 * unusable); the next `loadHighs()` instantiates a fresh one.
 */
export function discardHighs(): void {
  runtime = undefined;
}

/**
 * Runs `solve` with the HiGHS runtime. A runtime that cannot be loaded, or a fault while solving
 * (an abort or out of memory inside WebAssembly), becomes the answer `failed(reason)` builds
 * instead of an exception; after a fault the runtime is discarded, since a reload costs tens of
 * milliseconds and a faulted one may stay unusable.
 */
export async function withHighs<T>(solve: (highs: Highs) => T | Promise<T>, failed: (reason: string) => T): Promise<T> {
  let highs: Highs;
  try {
    highs = await loadHighs();
  } catch (error) {
    return failed(`HiGHS could not be loaded: ${(error as Error).message}`);
  }
  try {
    return await solve(highs);
  } catch (error) {
    discardHighs();
    return failed(`the solver failed: ${(error as Error).message}`);
  }
}
