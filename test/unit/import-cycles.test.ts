/**
 * No import circles in server/src and client/src (issue 15). A circle makes module load order
 * matter (a CommonJS `require` can return a half-initialised module) and ties layers that should
 * stand alone; type-only imports count too, because they tie the files' meanings just as much.
 * The imports are read with TypeScript's own pre-processor (comments and strings are not mistaken
 * for imports), every relative specifier resolved as the compiler resolves it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../support/paths';

const ROOTS = ['server/src', 'client/src'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `./x`, `./x.js`, `./dir` -> the .ts file it names, or undefined (a package, a JSON file...). */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|ts)$/, '');
  for (const candidate of [`${stem}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Every file's relative imports: `import`, `import type`, `export ... from`, `import()`, `require()`. */
export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((ref) => resolveSpecifier(file, ref.fileName))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components (Tarjan); each one of two files or more, or a file importing itself, holds a circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** One shortest circle through a component's first file (breadth-first), as `a -> b -> a`. */
function oneCircle(graph: Map<string, string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start];
}

test('the import graph is read: known edges are found, type-only ones included', () => {
  const files = ROOTS.flatMap((root) => sourceFiles(resolve(REPO_ROOT, root)));
  assert.ok(files.length > 100, `only ${files.length} source files found`);
  const graph = importGraph(files);
  const edges = (from: string) => (graph.get(resolve(REPO_ROOT, from)) ?? []).map((to) => relative(REPO_ROOT, to));
  // A directory import (`'./rules'`) resolves to its index.ts.
  assert.ok(edges('server/src/linter/linter.ts').includes('server/src/rules/index.ts'), 'linter.ts -> rules/index.ts missing');
  // A type-only import must be an edge as well: find one in the sources and check it is in the graph.
  const typeOnly = files.find((file) => /^import type \{[^}]*\} from '(\.[^']+)'/m.test(readFileSync(file, 'utf8')));
  assert.ok(typeOnly, 'no `import type` in the sources to check against');
  const specifier = /^import type \{[^}]*\} from '(\.[^']+)'/m.exec(readFileSync(typeOnly, 'utf8'))![1]!;
  assert.ok(graph.get(typeOnly)!.includes(resolveSpecifier(typeOnly, specifier)!), `${typeOnly}: ${specifier} is not an edge`);
});

test('the circle finder finds a circle when there is one', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
  ]);
  const found = circles(graph).map((component) => oneCircle(graph, component).join(' -> '));
  assert.deepEqual(found.sort(), ['a -> b -> c -> a', 'e -> e']);
});

test('server/src and client/src import no circle of files (type-only imports included)', () => {
  const files = ROOTS.flatMap((root) => sourceFiles(resolve(REPO_ROOT, root)));
  const graph = importGraph(files);
  const found = circles(graph).map((component) =>
    oneCircle(graph, component)
      .map((file) => relative(REPO_ROOT, file))
      .join(' -> ') + (component.length > 2 ? ` (${component.length} files in this knot)` : ''),
  );
  assert.deepEqual(found, [], `import circles:\n${found.join('\n')}`);
});
