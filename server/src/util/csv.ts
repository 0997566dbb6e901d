/**
 * Comma-separated values as RFC 4180 writes them (quoted fields with doubled quotes, CRLF or LF
 * line ends): read for `--training-data`, written for `--emit-reconstruction`. Small on purpose:
 * the files are tables of numbers and column names, not spreadsheets.
 */

/** Rows of fields. Throws on an unterminated quoted field (the file is cut or not CSV). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark is not part of the first name
  const endRow = () => {
    row.push(field);
    field = '';
    // Blank lines (often the last one) are not rows.
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') endRow();
    else if (c === '\r') {
      if (text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (quoted) throw new Error('a quoted field is not closed before the end of the file');
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

/** One field, quoted when it holds a comma, a quote, a line break or surrounding spaces. */
export function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\n`;
}
