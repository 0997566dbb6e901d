#!/usr/bin/python3
"""Trains the regression forests of the membership measurement in docs/membership.md
("Regression forests"): scikit-learn's diabetes data (442 patients, 10 features, disease
progression as target), members a seeded random half, candidates every patient.

Models, random_state 0, trained on the members: `RandomForestRegressor()` (100 trees, bootstrap,
seeds stored), `RandomForestRegressor(bootstrap=False)`, `ExtraTreesRegressor()` and
`RandomForestRegressor(min_samples_leaf=5)`. Writes `<name>.joblib` and `candidates.csv`
(features, `target`, `member` 1/0) into OUT_DIR; then, per model:

    /usr/bin/python3 test/bench/make-regression-membership.py OUT_DIR
    node dist/cli.js OUT_DIR/rf_default.joblib --membership OUT_DIR/candidates.csv --label target \
        --members-column member --format json --budget 10

Debian's python3-sklearn 1.2.1. Deterministic.
"""
import csv
import os
import sys

import joblib
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
d = load_diabetes()
X, y = d.data, d.target
members = np.zeros(len(y), bool)
members[np.random.RandomState(0).permutation(len(y))[: len(y) // 2]] = True
models = {
    "rf_default": RandomForestRegressor(random_state=0),
    "rf_nobs": RandomForestRegressor(bootstrap=False, random_state=0),
    "et_default": ExtraTreesRegressor(random_state=0),
    "rf_msl5": RandomForestRegressor(min_samples_leaf=5, random_state=0),
}
for name, model in models.items():
    model.fit(X[members], y[members])
    joblib.dump(model, os.path.join(out, f"{name}.joblib"))
with open(os.path.join(out, "candidates.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(list(d.feature_names) + ["target", "member"])
    for x, t, m in zip(X, y, members):
        w.writerow([repr(float(v)) for v in x] + [repr(float(t)), int(m)])
print(f"wrote {len(models)} models and candidates.csv to {out}")
