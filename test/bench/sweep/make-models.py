"""The certified-claims sweep, part 1: COUNT models with random settings, as people train and save
them (forests, extra trees, single trees, regressors, class weights, max_samples, gradient and
histogram boosting, XGBoost; pipelines with a scaler, grid searches, calibrated models; joblib,
pickle, XGBoost JSON and UBJ), on samples of the papers' data sets and scikit-learn's own, each
with the rows its trees saw (`<name>.train.csv`, the values as the trees compared them: float32, float64 for HistGradientBoosting; none for calibrated models, whose
folds saw different rows) and a manifest. check.py runs the CLI on them.

    /usr/bin/python3 test/bench/sweep/make-models.py OUT_DIR SEED COUNT [SIZES] [MIX]

SIZES: the training-set sizes drawn from, comma-separated (default 60,150,400,800,2000; a data set
smaller than the size drawn is taken whole), e.g. 2000,5000,10000 for models at scale.
MIX: `classic` (default: the kinds above) or `wide`, which adds bagging and AdaBoost, fits a third
of the models on a pandas DataFrame (names stored in `feature_names_in_`) with string class labels,
and wraps some in a ColumnTransformer (needs Debian's python3-pandas). A seed's classic models do
not change with this option.

Debian's python3-sklearn 1.2.1 and python3-xgboost 1.7.4; deterministic for a seed.
"""
import csv, json, os, pickle, sys
import numpy as np, joblib
from sklearn.datasets import load_breast_cancer, load_wine, load_iris, load_diabetes
from sklearn import ensemble as E, tree as Tr
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import GridSearchCV
from sklearn.calibration import CalibratedClassifierCV
import xgboost as xgb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures'))
import fixture_io  # noqa: E402

OUT = sys.argv[1]; SEED = int(sys.argv[2]); COUNT = int(sys.argv[3])
SIZES = [int(v.strip()) for v in sys.argv[4].split(',')] if len(sys.argv) > 4 and sys.argv[4] else [60, 150, 400, 800, 2000]
WIDE = len(sys.argv) > 5 and sys.argv[5] == 'wide'
if WIDE:
    import pandas as pd
    from sklearn.compose import ColumnTransformer
os.makedirs(OUT, exist_ok=True)
rng = np.random.RandomState(SEED)

def shared(name):
    rows = list(csv.reader(open(os.path.join(fixture_io.data_dir(name), name))))
    A = np.array([[float(v) for v in r] for r in rows[1:]])
    return rows[0][:-1], A[:, :-1], A[:, -1]

def sets():
    d = load_breast_cancer(); yield 'bc', list(d.feature_names), d.data, d.target, 'clf'
    d = load_wine(); yield 'wine', list(d.feature_names), d.data, d.target, 'clf'
    d = load_iris(); yield 'iris', list(d.feature_names), d.data, d.target, 'clf'
    h, X, y = shared('pima_diabetes.csv'); yield 'pima', h, X, y.astype(int), 'clf'
    h, X, y = shared('compas.csv'); yield 'compas', h, X, y.astype(int), 'clf'
    h, X, y = shared('adult.csv'); yield 'adult', h, X, y.astype(int), 'clf'
    h, X, y = shared('default_credit_numerical.csv'); yield 'credit', h, X, y.astype(int), 'clf'
    d = load_diabetes(); yield 'diab', list(d.feature_names), d.data, d.target, 'reg'
SETS = list(sets())
manifest = []
for k in range(COUNT):
    name, header, X, y, task = SETS[rng.randint(len(SETS))]
    n = min(len(X), int(rng.choice(SIZES)))
    idx = rng.choice(len(X), n, replace=False)
    Xs, ys = X[idx], y[idx]
    if WIDE:
        kind = rng.choice(['rf', 'et', 'dt', 'gb', 'hgb', 'xgb', 'bag', 'ada'], p=[.25, .12, .08, .1, .08, .12, .13, .12])
        frame = rng.rand() < 0.35
        if frame and task == 'clf':
            # String labels, as a DataFrame's label column usually holds them.
            ys = np.array(['class_' + 'abcdefgh'[int(v)] for v in ys], dtype=object)
    else:
        kind = rng.choice(['rf', 'et', 'dt', 'gb', 'hgb', 'xgb'], p=[.35, .2, .1, .12, .08, .15])
        frame = False
    if kind == 'xgb' and task == 'clf' and ys.dtype == object:
        ys = np.array([ord(v[-1]) - ord('a') for v in ys])  # XGBoost takes 0..K-1 labels only
    p = {}
    if kind in ('rf', 'et', 'dt'):
        p['max_depth'] = [None, 3, 6, 12][rng.randint(4)]
        p['min_samples_leaf'] = [1, 1, 2, 5][rng.randint(4)]
        p['max_features'] = ['sqrt', None, 0.5][rng.randint(3)]
        if task == 'clf':
            p['class_weight'] = [None, None, 'balanced', 'balanced_subsample'][rng.randint(4)] if kind != 'dt' else [None, 'balanced'][rng.randint(2)]
            p['criterion'] = ['gini', 'entropy'][rng.randint(2)]
        if kind != 'dt':
            p['n_estimators'] = int(rng.choice([5, 20, 100]))
            p['bootstrap'] = bool(rng.rand() < (0.7 if kind == 'rf' else 0.3))
            if p['bootstrap'] and rng.rand() < 0.2: p['max_samples'] = 0.6
        if p.get('class_weight') == 'balanced_subsample' and not p.get('bootstrap'): p['class_weight'] = 'balanced'
        cls = {('rf', 'clf'): E.RandomForestClassifier, ('rf', 'reg'): E.RandomForestRegressor, ('et', 'clf'): E.ExtraTreesClassifier,
               ('et', 'reg'): E.ExtraTreesRegressor, ('dt', 'clf'): Tr.DecisionTreeClassifier, ('dt', 'reg'): Tr.DecisionTreeRegressor}[(kind, task)]
        model = cls(random_state=int(rng.randint(1000)), **p)
    elif kind == 'gb':
        p = dict(n_estimators=int(rng.choice([10, 50, 100])), max_depth=int(rng.choice([2, 3, 5])), subsample=float(rng.choice([1.0, 1.0, 0.8])))
        model = (E.GradientBoostingClassifier if task == 'clf' else E.GradientBoostingRegressor)(random_state=1, **p)
    elif kind == 'hgb':
        p = dict(max_iter=int(rng.choice([10, 50])), max_depth=[None, 3][rng.randint(2)])
        model = (E.HistGradientBoostingClassifier if task == 'clf' else E.HistGradientBoostingRegressor)(random_state=1, **p)
    elif kind == 'bag':
        p = dict(n_estimators=int(rng.choice([5, 10, 50])), bootstrap=bool(rng.rand() < 0.8), max_samples=float(rng.choice([1.0, 1.0, 0.5])))
        model = (E.BaggingClassifier if task == 'clf' else E.BaggingRegressor)(random_state=int(rng.randint(1000)), **p)
    elif kind == 'ada':
        p = dict(n_estimators=int(rng.choice([10, 50])))
        model = (E.AdaBoostClassifier if task == 'clf' else E.AdaBoostRegressor)(random_state=int(rng.randint(1000)), **p)
    else:
        p = dict(n_estimators=int(rng.choice([5, 20, 100])), max_depth=int(rng.choice([2, 3, 6])), subsample=float(rng.choice([1.0, 1.0, 0.8])), tree_method=['exact', 'hist'][rng.randint(2)])
        model = (xgb.XGBClassifier if task == 'clf' else xgb.XGBRegressor)(random_state=1, **p)
    wrap = rng.choice(['none', 'none', 'none', 'pipe', 'grid', 'calib']) if kind in ('rf', 'et', 'gb') and task == 'clf' else 'none'
    if WIDE and frame:
        cols = [str(c).replace(' ', '_') for c in header][:Xs.shape[1]]
        Xs = pd.DataFrame(Xs, columns=cols)
        if wrap == 'none' and rng.rand() < 0.4 and kind != 'xgb': wrap = 'ct'
    if wrap == 'ct':
        # Scales the first half of the columns, passes the rest: the trees see the transformed matrix.
        half = list(Xs.columns[: Xs.shape[1] // 2])
        fitted = make_pipeline(ColumnTransformer([('scaled', StandardScaler(), half)], remainder='passthrough'), model).fit(Xs, ys)
        seen = fitted[0].transform(Xs)
    elif wrap == 'pipe':
        fitted = make_pipeline(StandardScaler(), model).fit(Xs, ys)
        seen = fitted[0].transform(Xs)
    elif wrap == 'grid':
        fitted = GridSearchCV(model, {'min_samples_split': [2]} if kind != 'gb' else {'learning_rate': [0.1]}, cv=2).fit(Xs, ys); seen = np.asarray(Xs, dtype=np.float64)
    elif wrap == 'calib':
        fitted = CalibratedClassifierCV(model, cv=2).fit(Xs, ys); seen = None  # each fold saw half: no truth
    else:
        fitted = model.fit(Xs, ys); seen = np.asarray(Xs, dtype=np.float64)
    base = f'{k:02d}_{name}_{kind}_{wrap}' + ('_df' if frame else '')
    ext = rng.choice(['.joblib', '.pkl']) if kind != 'xgb' else rng.choice(['.joblib', '_xgb.json', '_xgb.ubj'])
    path = os.path.join(OUT, base + ext)
    if ext.startswith('_xgb'): fitted.save_model(path)
    elif ext == '.pkl': pickle.dump(fitted, open(path, 'wb'))
    else: joblib.dump(fitted, path, compress=int(rng.choice([0, 0, 3])))
    if seen is not None:
        # The rows as given to fit (a Pipeline's input, in its own units and columns), for the CLI's
        # own check (--training-data's certifiedCheck, check.py): a Pipeline's reconstruction speaks
        # in these, not in the scaled values the trees compared.
        raw = Xs if isinstance(Xs, np.ndarray) else Xs.to_numpy(dtype=np.float64)
        rawHeader = list(Xs.columns) if not isinstance(Xs, np.ndarray) else [f'x{j}' for j in range(raw.shape[1])]
        with open(os.path.join(OUT, base + '.raw.csv'), 'w', newline='') as f:
            w = csv.writer(f); w.writerow(rawHeader + ['y'])
            for r, t in zip(np.asarray(raw, dtype=np.float64), ys): w.writerow([repr(float(v)) for v in r] + [repr(float(t)) if task == 'reg' else (t if isinstance(t, str) else int(t))])
        # The values the trees compared: float32 for scikit-learn's trees and XGBoost, float64 for
        # HistGradientBoosting (its bins and thresholds are float64).
        S = seen.astype(np.float64) if kind == 'hgb' else seen.astype(np.float32).astype(np.float64)
        with open(os.path.join(OUT, base + '.train.csv'), 'w', newline='') as f:
            w = csv.writer(f); w.writerow([f'f{j}' for j in range(S.shape[1])] + ['y'])
            for r, t in zip(S, ys): w.writerow([repr(float(v)) for v in r] + [repr(float(t)) if task == 'reg' else (t if isinstance(t, str) else int(t))])
    manifest.append(dict(name=base, path=path, task=task, kind=kind, wrap=wrap, rows=n, params={k2: str(v) for k2, v in p.items()}, truth=seen is not None))
json.dump(manifest, open(os.path.join(OUT, 'manifest.json'), 'w'), indent=1)
print(len(manifest), 'models')
