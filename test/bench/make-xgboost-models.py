"""Trains the first-tree-probing benchmark models: XGBoost binary:logistic, 100 trees of depth 6
on 1,000 and 10,000 rows of the numeric Default Credit data set, saved as JSON and UBJSON by
xgboost 1.7.4 (Debian). Deterministic; skips models that already exist.

Usage: /usr/bin/python3 test/bench/make-xgboost-models.py OUT_DIR DATA_CSV
"""
import csv
import os
import sys

import numpy as np
import xgboost as xgb

out_dir, data_csv = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
with open(data_csv) as f:
    rows = list(csv.reader(f))
X_all = np.array([[float(v) for v in row[:-1]] for row in rows[1:]])
y_all = np.array([int(float(row[-1])) for row in rows[1:]])

for n_rows in (1000, 10000):
    paths = [os.path.join(out_dir, f"xgb-100trees-{n_rows}rows.{ext}") for ext in ("json", "ubj")]
    if all(os.path.exists(p) for p in paths):
        continue
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 6, "tree_method": "hist", "nthread": 2, "seed": 0},
                        xgb.DMatrix(X_all[:n_rows], label=y_all[:n_rows]), num_boost_round=100)
    for p in paths:
        booster.save_model(p)
        print(f"wrote {p} ({os.path.getsize(p) / 1e6:.2f} MB)", flush=True)
