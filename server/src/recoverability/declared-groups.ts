/**
 * Categorical groups the user declares, so that the reconstruction can prune cells that break
 * them (issue 3, item 2): one-hot features of one attribute (`race=...`: exactly one is 1) and
 * at-most-one groups. The model file may prove some itself (the columns a Pipeline's
 * OneHotEncoder wrote for one input: forest.featureGroups); the user declares the others in three
 * places, merged after those in this order:
 *   1. a sidecar file beside the model: `<model file>.privacy.json` (`forest.joblib.privacy.json`)
 *      or `<model stem>.privacy.json` (`forest.privacy.json`), written by the user or the training script;
 *   2. the setting `modelPrivacyLint.reconstruction.groups` (editor) ;
 *   3. the CLI flags `--one-hot a,b,c` and `--at-most-one a,b`.
 * Features are named as the model names them (scikit-learn's `feature_names_in_`), or by index.
 * A group that names a feature the model does not have is reported and ignored: the engine trusts
 * every group it is given, and a wrong group could make a certificate wrong.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import type { Forest } from '../forest/schema';
import type { CategoricalGroup } from '../attacks/reconstruction/types';

export const GroupDeclarationSchema = z.object({
  kind: z.enum(['one-hot', 'at-most-one']),
  /** Feature names (as stored in the model) or indices. */
  features: z.array(z.union([z.string(), z.number().int().nonnegative()])).min(2),
});
export type GroupDeclaration = z.infer<typeof GroupDeclarationSchema>;

/** The sidecar file `<model>.privacy.json`. */
export const PrivacySidecarSchema = z.object({
  $schema: z.string().optional(),
  /** Categorical attributes encoded as several binary features. */
  groups: z.array(GroupDeclarationSchema).default([]),
  /**
   * Rule ids not reported for this model file (the editor's "Disable this rule for this file"
   * writes it): a binary model has no room for a comment, its sidecar does.
   */
  disable: z.array(z.string()).default([]),
  /**
   * A candidate file whose membership the editor scores after the reconstruction (issue 14, as the
   * CLI's --membership): path relative to the sidecar, its label column (left out for an outlier
   * detector, whose rows have none), and optionally the column that says who was a member (then
   * the metrics are reported too).
   */
  membership: z
    .object({
      candidates: z.string().min(1),
      label: z.string().min(1).optional(),
      membersColumn: z.string().min(1).optional(),
    })
    .strict()
    .optional(),
});
export type MembershipDeclaration = NonNullable<z.infer<typeof PrivacySidecarSchema>['membership']>;

export interface ResolvedGroups {
  groups: CategoricalGroup[];
  /** Where the groups came from, for the report (`sidecar path`, `settings`, `command line`). */
  sources: string[];
  /** Declarations that were ignored, and why. */
  problems: string[];
}

/** The sidecar paths looked for beside a model file, most specific first. */
export function sidecarPaths(modelPath: string): string[] {
  const dir = dirname(modelPath);
  const name = basename(modelPath);
  const stem = name.endsWith('.forest.json') ? name.slice(0, -'.forest.json'.length) : name.slice(0, name.length - extname(name).length);
  return [...new Set([join(dir, `${name}.privacy.json`), join(dir, `${stem}.privacy.json`)])];
}

/** Reads the first sidecar that exists; a malformed one is a problem, never an exception. */
export async function readSidecar(
  modelPath: string,
): Promise<{ path?: string; declarations: GroupDeclaration[]; problems: string[]; disable?: string[]; membership?: MembershipDeclaration; text?: string }> {
  for (const path of sidecarPaths(modelPath)) {
    let text: string;
    try {
      text = await fs.readFile(path, 'utf8');
    } catch {
      continue;
    }
    try {
      const parsed = PrivacySidecarSchema.safeParse(JSON.parse(text));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { path, declarations: [], problems: [`${basename(path)} is not a valid privacy sidecar (${issue.path.join('.') || 'top level'}: ${issue.message}); its groups were ignored`], text };
      }
      return { path, declarations: parsed.data.groups, problems: [], disable: parsed.data.disable, ...(parsed.data.membership ? { membership: parsed.data.membership } : {}), text };
    } catch (error) {
      return { path, declarations: [], problems: [`${basename(path)} is not valid JSON (${(error as Error).message}); its groups were ignored`], text };
    }
  }
  return { declarations: [], problems: [] };
}

/** Declarations to feature indices of this model; unknown names and overlaps are reported. */
export function resolveGroups(forest: Pick<Forest, 'features'>, declared: readonly { source: string; declarations: readonly GroupDeclaration[] }[]): ResolvedGroups {
  const index = new Map<string, number>();
  forest.features.forEach((feature, i) => index.set(feature.name, i));
  const groups: CategoricalGroup[] = [];
  const sources: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { source, declarations } of declared) {
    let used = false;
    for (const declaration of declarations) {
      const features: number[] = [];
      const unknown: string[] = [];
      for (const ref of declaration.features) {
        const i = typeof ref === 'number' ? (ref < forest.features.length ? ref : undefined) : index.get(ref);
        if (i === undefined) unknown.push(String(ref));
        else features.push(i);
      }
      const label = `${declaration.kind} group [${declaration.features.join(', ')}] (${source})`;
      if (unknown.length > 0) {
        problems.push(`${label} names ${unknown.length === 1 ? 'a feature' : 'features'} the model does not have (${unknown.join(', ')}); the group was ignored`);
        continue;
      }
      if (new Set(features).size !== features.length) {
        problems.push(`${label} lists a feature twice; the group was ignored`);
        continue;
      }
      const key = `${declaration.kind}:${[...features].sort((a, b) => a - b).join(',')}`;
      if (seen.has(key)) continue; // the same group declared in two places
      seen.add(key);
      groups.push({ kind: declaration.kind, features });
      used = true;
    }
    if (used) sources.push(source);
  }
  return { groups, sources, problems };
}

/** CLI values `a,b,c` (names or indices) as declarations of `kind`. */
export function groupsFromFlags(kind: GroupDeclaration['kind'], values: readonly string[]): GroupDeclaration[] {
  return values.map((value) => ({
    kind,
    features: value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
  }));
}

/**
 * The groups the model file itself proves (a Pipeline's OneHotEncoder, forest.featureGroups), then
 * the sidecar, settings and command line, resolved against the model.
 */
export async function declaredGroupsFor(
  modelPath: string,
  forest: Pick<Forest, 'features' | 'featureGroups'>,
  extra: readonly { source: string; declarations: readonly GroupDeclaration[] }[] = [],
): Promise<ResolvedGroups> {
  const sidecar = await readSidecar(modelPath);
  const own = forest.featureGroups?.length ? [{ source: "the model's Pipeline (OneHotEncoder)", declarations: forest.featureGroups }] : [];
  const declared = [...own, ...(sidecar.path ? [{ source: basename(sidecar.path), declarations: sidecar.declarations }] : []), ...extra];
  const resolved = resolveGroups(forest, declared);
  return { ...resolved, problems: [...sidecar.problems, ...resolved.problems] };
}
