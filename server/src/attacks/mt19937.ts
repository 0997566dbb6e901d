/**
 * numpy's legacy `RandomState` generator (MT19937), reimplemented so that a forest's bootstrap
 * samples can be replayed from the seeds scikit-learn stores, without Python or numpy.
 *
 * Only what scikit-learn's `_generate_sample_indices` uses is here: seeding from a 32-bit integer
 * (`init_genrand`, which numpy uses for scalar seeds) and `randint(low, high, size, dtype=int32)`
 * (masked rejection sampling on raw 32-bit outputs). The test suite checks it bit for bit against
 * the indices numpy produced for the fixture forests.
 */

const STATE_SIZE = 624;
const SHIFT = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

export class LegacyMT19937 {
  private readonly mt = new Uint32Array(STATE_SIZE);
  private index = STATE_SIZE;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new RangeError(`numpy seeds are integers in [0, 2**32 - 1], got ${seed}`);
    }
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < STATE_SIZE; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      // 1812433253 * prev + i in 32-bit arithmetic: Math.imul keeps the low 32 bits exactly.
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  /** The next raw 32-bit output (numpy's `mt19937_next32` / `genrand_int32`). */
  nextUint32(): number {
    if (this.index >= STATE_SIZE) this.twist();
    let y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  private twist(): void {
    const mt = this.mt;
    for (let i = 0; i < STATE_SIZE; i++) {
      const y = (mt[i] & UPPER_MASK) | (mt[(i + 1) % STATE_SIZE] & LOWER_MASK);
      mt[i] = mt[(i + SHIFT) % STATE_SIZE] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    this.index = 0;
  }

  /**
   * `RandomState.randint(low, high, size, dtype=np.int32)`: numpy draws `rng = high - 1 - low`
   * with a bit mask and rejects values above `rng` (legacy `use_masked=True` path).
   */
  randintInt32(low: number, high: number, size: number, visit: (value: number) => void): void {
    const rng = high - 1 - low;
    if (rng < 0 || rng > 0xffffffff) throw new RangeError(`randint range [${low}, ${high}) is empty or too wide`);
    if (rng === 0) {
      for (let i = 0; i < size; i++) visit(low);
      return;
    }
    let mask = rng;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    mask >>>= 0;
    for (let i = 0; i < size; i++) {
      let value: number;
      do {
        value = (this.nextUint32() & mask) >>> 0;
      } while (value > rng);
      visit(low + value);
    }
  }
}
