#!/usr/bin/python3
"""Trains boosted models as people save them with the libraries' defaults, for the figures in
docs/benchmarks.md ("Boosted models with row subsamples or many classes"): squared-error boosting
with `subsample` below 1 (boosted-subsample.ts) and XGBoost's multi-class default past the cell
limit (multiclass-box-labels.ts).

  xgb_reg_sub_diab.json    XGBRegressor(subsample=0.8) on the 442 diabetes rows (100 trees of depth
                           6; the scikit-learn wrapper states subsample in the file)
  booster_sub_diab.json    xgb.train with subsample=0.8, 100 rounds, same rows (states nothing)
  gbr_sub_diab.joblib      GradientBoostingRegressor(subsample=0.8), same rows (100 stages of depth 3)
  xgb_digits.json          XGBClassifier() on all 1,797 digits rows (10 classes, 100 rounds of depth 6)
  xgb_digits_sub.json      XGBClassifier(subsample=0.8), same rows (each class tree draws its own rows)
  booster_digits_sub.json  xgb.train(multi:softprob, subsample=0.8), 100 rounds, same rows (states nothing)

    /usr/bin/python3 test/bench/make-boosted-defaults.py OUT_DIR
    for f in OUT_DIR/*.json OUT_DIR/*.joblib; do node dist/cli.js "$f" --format json --budget 60; done

Debian's python3-sklearn 1.2.1, python3-xgboost 1.7.4; one thread, fixed seeds.
"""
import gzip
import os
import sys

import joblib
import numpy as np
import sklearn
import xgboost as xgb
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
X, y = load_diabetes(return_X_y=True)
xgb.XGBRegressor(subsample=0.8, n_jobs=1, random_state=0).fit(X, y).save_model(os.path.join(out, "xgb_reg_sub_diab.json"))
booster = xgb.train({"objective": "reg:squarederror", "subsample": 0.8, "nthread": 1, "seed": 0}, xgb.DMatrix(X, label=y), 100)
booster.save_model(os.path.join(out, "booster_sub_diab.json"))
joblib.dump(GradientBoostingRegressor(subsample=0.8, random_state=0).fit(X, y), os.path.join(out, "gbr_sub_diab.joblib"))
with gzip.open(os.path.join(os.path.dirname(sklearn.__file__), "datasets", "data", "digits.csv.gz"), "rt") as f:
    D = np.array([[float(v) for v in line.split(",")] for line in f if line.strip()])
xgb.XGBClassifier(n_jobs=1, random_state=0).fit(D[:, :64], D[:, 64].astype(int)).save_model(os.path.join(out, "xgb_digits.json"))
xgb.XGBClassifier(subsample=0.8, n_jobs=1, random_state=0).fit(D[:, :64], D[:, 64].astype(int)).save_model(os.path.join(out, "xgb_digits_sub.json"))
params = {"objective": "multi:softprob", "num_class": 10, "subsample": 0.8, "nthread": 1, "seed": 0}
xgb.train(params, xgb.DMatrix(D[:, :64], label=D[:, 64].astype(int)), 100).save_model(os.path.join(out, "booster_digits_sub.json"))
print("wrote 6 models to", out)
