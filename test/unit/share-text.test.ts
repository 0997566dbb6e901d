/**
 * A share of an estimated or bounded N in words (sweep 10: "2 training rows of about 16,334 (about
 * <1%)"): a share already said as a bound is not qualified again.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { shareText } from '../../server/src/recoverability/summary';

test('shares of an estimated or bounded N read as words, never "about <1%"', () => {
  assert.equal(shareText('37%', 'estimate'), 'about 37%');
  assert.equal(shareText('37%', 'at-least'), 'at most 37%');
  assert.equal(shareText('37%', undefined), '37%');
  assert.equal(shareText('<1%', 'estimate'), 'about 1% or less');
  assert.equal(shareText('<1%', 'at-least'), 'under 1%');
  assert.equal(shareText('<1%', undefined), '<1%');
  assert.equal(shareText('>99%', 'estimate'), 'about 99% or more');
  assert.equal(shareText('>99%', 'at-least'), 'at most 100%');
  for (const kind of ['estimate', 'at-least', undefined] as const) for (const p of ['<1%', '>99%']) assert.doesNotMatch(shareText(p, kind), /(about|most) [<>]/);
});
