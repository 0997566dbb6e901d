#!/usr/bin/python3
"""Trains boosted classifiers with the libraries' defaults on a seeded half of each data set, for the
figures in docs/benchmarks.md ("Boosted classifiers"): how many rows each certifies, the RA of its
reconstruction and the membership AUC on the whole data set. Per model `<name>.joblib` (or
`<name>_xgb.json`), `<name>.train.csv` (the rows it saw, as its trees compared them: float32,
float64 for HistGradientBoosting) and per data set `<set>.candidates.csv` (every row, with `member`).

  bc_*, pima_*     binary: breast cancer (569 rows), Pima (768); members a seeded half
  iris_*, wine_*   three classes: iris (150), wine (178)
  *_gb             GradientBoostingClassifier()          *_hgb   HistGradientBoostingClassifier()
  *_gbsub          GradientBoostingClassifier(subsample=0.8)
  *_ada            AdaBoostClassifier() (50 stumps)      *_ada3  AdaBoostClassifier(max_depth=3 trees)
  *_xgb            XGBClassifier() (100 rounds of depth 6)

    /usr/bin/python3 test/bench/make-boosted-classifiers.py OUT_DIR
    for m in OUT_DIR/*.joblib OUT_DIR/*_xgb.json; do n=$(basename "$m"); n=${n%.joblib}; n=${n%_xgb.json}
      node dist/cli.js "$m" --format json --budget 20 --training-data OUT_DIR/$n.train.csv --label y
      node dist/cli.js "$m" --format json --budget 20 --membership OUT_DIR/${n%%_*}.candidates.csv --label y --members-column member
    done

Debian's python3-sklearn 1.2.1, python3-xgboost 1.7.4; one thread, fixed seeds.
"""
import csv
import os
import sys

import joblib
import numpy as np
import xgboost as xgb
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import fixture_io  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def pima():
    with open(os.path.join(fixture_io.data_dir("pima_diabetes.csv"), "pima_diabetes.csv")) as f:
        rows = list(csv.reader(f))
    table = np.array([[float(v) for v in row] for row in rows[1:]])
    return table[:, :-1], table[:, -1].astype(int)


SETS = {"bc": load_breast_cancer(return_X_y=True), "pima": pima(), "iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}
MODELS = {
    "gb": lambda: GradientBoostingClassifier(random_state=1),
    "gbsub": lambda: GradientBoostingClassifier(subsample=0.8, random_state=1),
    "hgb": lambda: HistGradientBoostingClassifier(random_state=1),
    "ada": lambda: AdaBoostClassifier(random_state=1),
    "ada3": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), random_state=1),
    "xgb": lambda: xgb.XGBClassifier(n_jobs=1, random_state=1),
}
count = 0
for name, (X, y) in SETS.items():
    members = np.random.RandomState(0).rand(len(X)) < 0.5
    columns = [f"f{j}" for j in range(X.shape[1])]
    fixture_io.write_rows(os.path.join(out, f"{name}.candidates.csv"), columns + ["y", "member"],
                          [[repr(float(v)) for v in r] + [int(t), int(m)] for r, t, m in zip(X, y, members)])
    for kind, make in MODELS.items():
        model = make().fit(X[members], y[members])
        base = os.path.join(out, f"{name}_{kind}")
        if kind == "xgb":
            model.save_model(base + "_xgb.json")
        else:
            joblib.dump(model, base + ".joblib")
        seen = X[members].astype(np.float64) if kind == "hgb" else X[members].astype(np.float32).astype(np.float64)
        fixture_io.write_rows(base + ".train.csv", columns + ["y"], [[repr(float(v)) for v in r] + [int(t)] for r, t in zip(seen, y[members])])
        count += 1
print(f"wrote {count} models to {out}")
