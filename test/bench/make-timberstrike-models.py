"""Trains the TimberStrike benchmark's models (PETS 2025, single model, no federation): XGBoost
binary:logistic, 100 trees, max_depth 3..8, on Pima (all 768 rows) and Stroke, by xgboost 1.7.4
(Debian), saved as JSON with the training rows as CSV next to each (the truth the bench scores
against). Stroke: categorical columns as integer codes in order of appearance, `N/A` bmi filled
with the median (the reconstruction does not model missing values), the id column dropped.
STROKE_ROWS (default 1000, stratified, fixed seed) keeps its reconstruction within a bench budget.
Deterministic (exact tree method, one thread); skips models that already exist.

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


def stroke(n):
    header, rows = read("stroke.csv")
    names = [h for h in header if h not in ("id", "stroke")]
    cats = ["gender", "ever_married", "work_type", "Residence_type", "smoking_status"]
    codes = {}
    bmis = [float(r[header.index("bmi")]) for r in rows if r[header.index("bmi")] != "N/A"]
    median_bmi = float(np.median(bmis))
    X = []
    for r in rows:
        rec = dict(zip(header, r))
        X.append([float(codes.setdefault(nm, {}).setdefault(rec[nm], len(codes[nm]))) if nm in cats
                  else (median_bmi if rec[nm] == "N/A" else float(rec[nm])) for nm in names])
    X = np.array(X)
    y = np.array([int(r[-1]) for r in rows])
    if n < len(rows):
        rng = np.random.RandomState(0)
        pos = np.flatnonzero(y == 1)
        neg = np.flatnonzero(y == 0)
        k = max(1, round(n * len(pos) / len(rows)))
        idx = np.sort(np.concatenate([rng.choice(pos, k, replace=False), rng.choice(neg, n - k, replace=False)]))
        X, y = X[idx], y[idx]
    return names, X, y


sets = {"pima": pima(), "stroke": stroke(int(os.environ.get("STROKE_ROWS", "1000")))}
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
