"""Trains the benchmark forests: 10, 100 and 500 trees on 100, 1,000 and 10,000 rows of the
numeric Default Credit data set (../shared/data), saved with joblib (uncompressed, as
`joblib.dump` does by default). Deterministic; skips models that already exist.

Usage: /usr/bin/python3 test/bench/make-models.py OUT_DIR DATA_CSV
"""
import csv
import os
import sys

import joblib
import numpy as np
from sklearn.ensemble import RandomForestClassifier

out_dir, data_csv = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
with open(data_csv) as f:
    rows = list(csv.reader(f))
X_all = np.array([[float(v) for v in row[:-1]] for row in rows[1:]])
y_all = np.array([int(float(row[-1])) for row in rows[1:]])

for n_rows in (100, 1000, 10000):
    X, y = X_all[:n_rows], y_all[:n_rows]
    for n_trees in (10, 100, 500):
        path = os.path.join(out_dir, f"forest-{n_trees}trees-{n_rows}rows.joblib")
        if os.path.exists(path):
            continue
        model = RandomForestClassifier(n_estimators=n_trees, random_state=0, n_jobs=2).fit(X, y)
        joblib.dump(model, path)
        print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)", flush=True)
