"""The certified-claims sweep, part 2: runs the CLI (`dist/cli.js`, built by `npm run build`) on every
model of make-models.py's OUT_DIR with a budget, and checks two ways that what it proves holds:
- every row its `--emit-reconstruction` CSV marks certified holds a training row of its own (a
  maximum bipartite matching of certified rows to true rows: each numeric value, a float32, in
  (F.low, F.high] compared in float64 as scikit-learn does, each one-column value equal, the label
  or target equal), against the values the trees compared, or, for a Pipeline, against the rows as
  given to fit (`.raw.csv`), in whose units the CLI writes a Pipeline's rows;
- the CLI's own check, run with `--training-data` on the rows as given to fit: every proven row,
  with its label or without (rows certified without their label are written `certified=false`, so
  the CSV cannot show them), and rows missing values, paired with a distinct true row
  (`evaluation.certifiedCheck`: held must equal proven).
Prints per model the status, method, certified share, time, peak memory and the verdicts; `bad N`
at the end counts the models with an unsound proof or an unreadable output. A model past its budget
by more than 5 s is marked OVER.

    /usr/bin/python3 test/bench/sweep/check.py OUT_DIR [BUDGET_SECONDS] [name filter ...]
"""
import csv, json, os, subprocess, sys, time
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

D = sys.argv[1]; BUDGET = sys.argv[2] if len(sys.argv) > 2 else '10'
only = sys.argv[3:] 
man = json.load(open(os.path.join(D, 'manifest.json')))
CLI = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'dist', 'cli.js')
bad = 0
for m in man:
    if only and not any(o in m['name'] for o in only): continue
    out = os.path.join(D, m['name'] + '.rec.csv')
    if os.path.exists(out): os.remove(out)
    t0 = time.time()
    raw = os.path.join(D, m['name'] + '.raw.csv')
    evaluate = ['--training-data', raw, '--label', 'y'] if m['truth'] and os.path.exists(raw) else []
    p = subprocess.run(['/usr/bin/time', '-f', '%M', 'node', CLI, m['path'], '--budget', BUDGET, '--format', 'json', '--emit-reconstruction', out, '--fail-on', 'never', *evaluate], capture_output=True, text=True, timeout=600)
    wall = time.time() - t0
    peak = int(p.stderr.strip().split('\n')[-1]) // 1024 if p.stderr.strip().split('\n')[-1].isdigit() else -1
    try:
        f = json.loads(p.stdout)['files'][0]
    except Exception as e:
        print(f"{m['name']}: CLI output unreadable rc={p.returncode} {p.stderr[-300:]}"); bad += 1; continue
    rec = f.get('recoverability') or {}
    rules = sorted({x['rule'] for x in f.get('findings', [])}) if f.get('findings') else []
    status = rec.get('status'); method = rec.get('method'); cert = rec.get('certifiedRows'); N = rec.get('rows')
    verdict = ''
    check = (f.get('evaluation') or {}).get('certifiedCheck')
    if evaluate and check is not None and check['held'] < check['proven']:
        verdict = f"UNSOUND (certifiedCheck): {check['proven'] - check['held']} of {check['proven']} proven rows hold no distinct true row; "; bad += 1
    elif evaluate and check is not None:
        verdict = f"check {check['held']}/{check['proven']}; "
    pipeline = m.get('wrap') in ('pipe', 'ct')
    if m['truth'] and os.path.exists(out) and (not pipeline or os.path.exists(raw)):
        rows = list(csv.reader(open(out))); head = rows[0]; body = rows[1:]
        truth = list(csv.reader(open(raw if pipeline else os.path.join(D, m['name'] + '.train.csv'))))[1:]
        TX = np.array([[float(v) for v in r[:-1]] for r in truth], dtype=np.float64); Ty = [r[-1] for r in truth]
        # The label is the column before `certified` (named `label`, or as --training-data names it).
        label = head[head.index('certified') - 1]
        feats = [h for h in head[: head.index('certified') - 1] if not h.endswith('.low') and not h.endswith('.high')]
        less = m['kind'] in ('xgb',)
        certs = [r for r in body if r[head.index('certified')] == 'true']
        adj = []
        for r in certs:
            ok = np.ones(len(TX), bool)
            for j, fname in enumerate(feats):
                col = head.index(fname)
                if fname + '.low' in head:
                    lo = r[head.index(fname + '.low')]; hi = r[head.index(fname + '.high')]
                    # The rows are float32 values written as float64 (make-models.py) and the bounds
                    # the float64 of the model's thresholds: compared in float64, as scikit-learn
                    # does. (NumPy would round a Python float to float32 against a float32 array.)
                    x = TX[:, j]
                    if lo != '': ok &= (x >= float(lo)) if less else (x > float(lo))
                    if hi != '': ok &= (x < float(hi)) if less else (x <= float(hi))
                elif r[col] != '':
                    ok &= np.isclose(TX[:, j], float(r[col]))
            lab = r[head.index(label)]
            if m['task'] == 'reg':
                t = np.array([float(v) for v in Ty]); ok &= np.abs(t - float(lab)) <= 1e-6 * np.maximum(1, np.abs(t)) + 1e-9
            else:
                ok &= np.array([float(v) == float(lab) for v in Ty]) if lab.replace('.', '').lstrip('-').isdigit() else np.array([v == lab for v in Ty])
            adj.append(ok)
        if certs:
            A = csr_matrix(np.array(adj, dtype=np.int8))
            match = maximum_bipartite_matching(A, perm_type='column')
            matched = int((match >= 0).sum())
            if matched < len(certs):
                if not verdict.startswith('UNSOUND'): bad += 1
                verdict += f'UNSOUND: {len(certs) - matched} of {len(certs)} certified rows match no distinct true row'
            else: verdict += 'sound'
    over = wall > float(BUDGET) + 5
    print(f"{m['name']:<28} {m['params']} rows={m['rows']} | {status} {method} cert={cert}/{N} {wall:.1f}s {peak}MB {'OVER' if over else ''} {verdict} | {rec.get('reason','')[:160]}", flush=True)
print('bad', bad)
