/** The CSV reader and writer used by --training-data and --emit-reconstruction. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { csvLine, parseCsv } from '../../server/src/util/csv';
import { reconstructionCsv } from '../../server/src/report/reconstruction-csv';

test('names with commas, quotes and spaces survive a round trip', () => {
  const names = ['plain', 'a,b', 'say "hi"', ' padded ', 'line\nbreak', ''];
  assert.deepEqual(parseCsv(csvLine(names) + csvLine(['1', '2', '3', '4', '5', '6'])), [names, ['1', '2', '3', '4', '5', '6']]);
});

test('CRLF, a byte-order mark, blank lines and a missing final newline are read as a spreadsheet writes them', () => {
  assert.deepEqual(parseCsv('\ufeffa,b\r\n1,2\r\n\r\n3,\n4,5'), [['a', 'b'], ['1', '2'], ['3', ''], ['4', '5']]);
});

test('an unterminated quoted field is an error, not a silent truncation', () => {
  assert.throws(() => parseCsv('a,b\n"1,2\n'), /not closed/);
});

test('the reconstruction CSV: features, label, certified; empty where undetermined', () => {
  const text = reconstructionCsv(
    [
      { values: [1, null, 0], label: 1, certified: true },
      { values: [0, 1, null], label: 'no', certified: false },
    ],
    { features: ['f,1', 'f2', 'f3'], label: 'y' },
  );
  assert.equal(text, '"f,1",f2,f3,y,certified\n1,,0,1,true\n0,1,,no,false\n');
});
