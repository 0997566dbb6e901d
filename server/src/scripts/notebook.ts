/**
 * Jupyter notebooks (.ipynb) as one Python text: the code cells in order (an import in the first
 * cell applies to the last), with a map back to (cell, line in cell) and to the JSON text of the
 * file, where each source line is one string of the cell's `source` array. Diagnostics are
 * published on the .ipynb file at those strings (read from disk, no notebook sync needed).
 */
import { parseTree, findNodeAtLocation, type Node } from 'jsonc-parser';

export interface NotebookCell {
  /** Index in the notebook's `cells` array. */
  index: number;
  source: string;
  /** Offset of the cell's first character in the combined text. */
  offset: number;
  /** For each line of the cell, the [start, end) offsets of its JSON string in the .ipynb text. */
  lineRanges: [number, number][];
}

export interface Notebook {
  /** Code cells joined with newlines (magics and shell lines blanked). */
  text: string;
  cells: NotebookCell[];
}

/** IPython magics (`%time`, `%%capture`) and shell escapes (`!pip`) are not Python: blank them. */
function blankMagics(source: string): string {
  return source.replace(/^([ \t]*)([%!].*)$/gm, (_, indent: string, rest: string) => indent + ' '.repeat(rest.length));
}

export function parseNotebook(json: string): Notebook | undefined {
  let root: Node | undefined;
  try {
    root = parseTree(json, [], { allowTrailingComma: true, disallowComments: false });
  } catch {
    return undefined;
  }
  const cellsNode = root && findNodeAtLocation(root, ['cells']);
  if (!cellsNode || cellsNode.type !== 'array') return undefined;
  const cells: NotebookCell[] = [];
  let text = '';
  (cellsNode.children ?? []).forEach((cell, index) => {
    const type = findNodeAtLocation(cell, ['cell_type']);
    if (type?.value !== 'code') return;
    const sourceNode = findNodeAtLocation(cell, ['source']);
    if (!sourceNode) return;
    let pieces: { value: string; range: [number, number] }[];
    if (sourceNode.type === 'array') {
      pieces = (sourceNode.children ?? []).filter((c) => c.type === 'string').map((c) => ({ value: String(c.value), range: [c.offset, c.offset + c.length] }));
    } else if (sourceNode.type === 'string') {
      pieces = [{ value: String(sourceNode.value), range: [sourceNode.offset, sourceNode.offset + sourceNode.length] }];
    } else return;
    const source = pieces.map((p) => p.value).join('');
    // each line of the cell maps to the JSON string it comes from
    const lineRanges: [number, number][] = [];
    let atLineStart = true;
    for (const piece of pieces) {
      if (piece.value.length === 0) continue;
      if (atLineStart) lineRanges.push(piece.range);
      // lines that start inside this string (a newline before its last character)
      const inner = piece.value.slice(0, -1).split('\n').length - 1;
      for (let k = 0; k < inner; k++) lineRanges.push(piece.range);
      atLineStart = piece.value.endsWith('\n');
    }
    if (text.length > 0) text += '\n';
    cells.push({ index, source, offset: text.length, lineRanges });
    text += blankMagics(source);
  });
  return { text, cells };
}

/** Cell and line within the cell of an offset into the combined text. */
export function cellPosition(notebook: Notebook, offset: number): { cell: NotebookCell; line: number; character: number } | undefined {
  let found: NotebookCell | undefined;
  for (const cell of notebook.cells) if (cell.offset <= offset) found = cell;
  if (!found) return undefined;
  const before = notebook.text.slice(found.offset, offset);
  const line = before.split('\n').length - 1;
  return { cell: found, line, character: offset - found.offset - before.lastIndexOf('\n') - 1 };
}
