"""Trains the TimberStrike benchmark's models (PETS 2025, single model, no federation): XGBoost
binary:logistic, 100 trees, max_depth 3..8, on Pima (all 768 rows) and Stroke, by xgboost 1.7.4
(Debian), saved as JSON with the training rows as CSV next to each (the truth the bench scores
against). Stroke: categorical columns as integer codes in order of appearance, `N/A` bmi filled
with the median (the reconstruction does not model missing values), the id column dropped.
STROKE_ROWS (default 1000, stratified, fixed seed) keeps its reconstruction within a bench budget.
"stroke-balanced" is the paper's setting: Stroke balanced with SMOTE-NC (Chawla et al. 2002, section
6.1; implemented below with numpy since imbalanced-learn is not in Debian), then STROKE_ROWS rows
drawn stratified from it (half stroke cases). Deterministic (exact tree method, one thread, fixed
seeds); skips models that already exist.

Usage: /usr/bin/python3 test/bench/make-timberstrike-models.py OUT_DIR DATA_DIR
"""
import csv
import os
import sys

import numpy as np
import xgboost as xgb

out_dir, data_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)


def read(name):
    with open(os.path.join(data_dir, name)) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def pima():
    header, rows = read("pima_diabetes.csv")
    return header[:-1], np.array([[float(v) for v in r[:-1]] for r in rows]), np.array([int(r[-1]) for r in rows])


STROKE_CATEGORICAL = ["gender", "hypertension", "heart_disease", "ever_married", "work_type", "Residence_type", "smoking_status"]


def stroke_all():
    header, rows = read("stroke.csv")
    names = [h for h in header if h not in ("id", "stroke")]
    cats = ["gender", "ever_married", "work_type", "Residence_type", "smoking_status"]  # text columns
    codes = {}
    bmis = [float(r[header.index("bmi")]) for r in rows if r[header.index("bmi")] != "N/A"]
    median_bmi = float(np.median(bmis))
    X = []
    for r in rows:
        rec = dict(zip(header, r))
        X.append([float(codes.setdefault(nm, {}).setdefault(rec[nm], len(codes[nm]))) if nm in cats
                  else (median_bmi if rec[nm] == "N/A" else float(rec[nm])) for nm in names])
    return names, np.array(X), np.array([int(r[-1]) for r in rows])


def stratified(X, y, n, positives):
    """n rows, `positives` of them with label 1, drawn without replacement (seed 0), in file order."""
    if n >= len(y):
        return X, y
    rng = np.random.RandomState(0)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    idx = np.sort(np.concatenate([rng.choice(pos, positives, replace=False), rng.choice(neg, n - positives, replace=False)]))
    return X[idx], y[idx]


def stroke(n):
    names, X, y = stroke_all()
    return (names, *stratified(X, y, n, max(1, round(n * y.mean()))))


def smote_nc(X, y, categorical, k=5, seed=0):
    """SMOTE-NC (Chawla et al. 2002, section 6.1): new minority rows until the classes balance. Each
    new row takes a random minority row x and one of its k nearest minority neighbours z; numeric
    features are x + u (z - x), u uniform in [0, 1); categorical ones take the value most of the k
    neighbours have (ties: the smallest code). Distance: Euclidean on the numeric features plus, per
    differing categorical feature, the squared median of the minority's numeric standard deviations."""
    rng = np.random.RandomState(seed)
    minority = 1 if (y == 1).sum() < (y == 0).sum() else 0
    M = X[y == minority]
    numeric = np.array([not c for c in categorical])
    cat = ~numeric
    med = np.median(M[:, numeric].std(axis=0))
    diff = M[:, None, :] - M[None, :, :]
    dist = (diff[:, :, numeric] ** 2).sum(axis=2) + med ** 2 * (diff[:, :, cat] != 0).sum(axis=2)
    np.fill_diagonal(dist, np.inf)
    neighbours = np.argsort(dist, axis=1, kind="stable")[:, :k]
    new = []
    for _ in range((y != minority).sum() - len(M)):
        i = rng.randint(len(M))
        z = M[neighbours[i, rng.randint(k)]]
        row = M[i].copy()
        row[numeric] = M[i, numeric] + rng.random_sample() * (z[numeric] - M[i, numeric])
        for f in np.flatnonzero(cat):
            values, counts = np.unique(M[neighbours[i], f], return_counts=True)
            row[f] = values[np.argmax(counts)]
        new.append(row)
    return np.vstack([X, np.array(new)]), np.concatenate([y, np.full(len(new), minority)])


def stroke_balanced(n):
    names, X, y = stroke_all()
    X, y = smote_nc(X, y, [nm in STROKE_CATEGORICAL for nm in names])
    return (names, *stratified(X, y, n, n // 2))


stroke_rows = int(os.environ.get("STROKE_ROWS", "1000"))
sets = {"pima": pima(), "stroke": stroke(stroke_rows), "stroke-balanced": stroke_balanced(stroke_rows)}
for name, (names, X, y) in sets.items():
    with open(os.path.join(out_dir, f"ts-{name}.train.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(names) + ["label"])
        for x, label in zip(X, y):
            w.writerow([repr(float(v)) for v in x] + [int(label)])
    for depth in range(3, 9):
        path = os.path.join(out_dir, f"ts-{name}-d{depth}.json")
        if os.path.exists(path):
            continue
        booster = xgb.train({"objective": "binary:logistic", "max_depth": depth, "tree_method": "exact", "nthread": 1, "seed": 0},
                            xgb.DMatrix(X, label=y, feature_names=list(names)), num_boost_round=100)
        booster.save_model(path)
        print(f"wrote {path}", flush=True)
