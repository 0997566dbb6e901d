#!/usr/bin/python3
"""Trains the models of the scale benchmark (test/bench/scale.bench.ts, issue 13): forests of the
sizes people train, to check that the engine keeps its budget and its memory on them.

COMPAS (binary, 14 features) at 1,000 and all 7,206 rows; numeric Default Credit at 1,000, 7,206
and all 29,986 rows ("30k"). The smaller sizes are seeded samples (numpy RandomState(0)). Per data
set: `RandomForestClassifier(n_estimators=T, random_state=0)` (bootstrap, seeds stored: the
replayed-bootstrap path) and the same with `bootstrap=False`, for T = 100 and 500.

Writes `<name>.joblib` and `manifest.json` (name, model, dataset, rows, trees, bootstrap, and the
one-hot groups of the data set, feature indices, for --one-hot) into OUT_DIR. Models already there
are kept. Names: <dataset>_<rows>_<rf|nobootstrap>_<trees>, e.g. compas_7k_rf_100.

    /usr/bin/python3 test/bench/make-scale-models.py OUT_DIR [name ...]

Also XGBClassifier (100 trees, hist) on Adult drawn with replacement to 250,000 and 1,000,000 rows
(adult_250k_xgb_100, adult_1m_xgb_100; Debian's python3-xgboost 1.7.4).

Only the named models are trained when names are given (the 500-tree forests on 30k rows take
minutes and hundreds of MB). Debian's python3-sklearn 1.2.1. Deterministic.
"""
import csv
import json
import os
import sys

import joblib
import numpy as np
from sklearn.ensemble import RandomForestClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture_io  # noqa: E402

DATA = fixture_io.data_dir("compas.csv")


def load(name):
    with open(os.path.join(DATA, name)) as f:
        rows = list(csv.reader(f))
    return rows[0][:-1], np.array([[float(v) for v in row] for row in rows[1:]])


def one_hot_groups(header):
    """Runs of columns named `<prefix>:<value>` or `<prefix>_<value>` that the data set one-hot encodes."""
    prefixes = {}
    for i, name in enumerate(header):
        for sep in (":",):
            if sep in name:
                prefixes.setdefault(name.split(sep)[0], []).append(i)
    return [members for members in prefixes.values() if len(members) > 1]


SIZES = {"compas": ("compas.csv", {"1k": 1000, "7k": 7206}), "credit": ("default_credit_numerical.csv", {"1k": 1000, "7k": 7206, "30k": None})}
MODELS = {"rf": True, "nobootstrap": False}
TREES = (100, 500)
XGB_SIZES = {"250k": 250_000, "1m": 1_000_000}


def main():
    out_dir = sys.argv[1]
    wanted = set(sys.argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "manifest.json")
    # Earlier runs' entries are kept, so that a subset trained now does not hide the others.
    manifest = {m["name"]: m for m in json.load(open(manifest_path))} if os.path.exists(manifest_path) else {}
    for dataset, (file, sizes) in SIZES.items():
        header, table = None, None
        for size, rows in sizes.items():
            for model, bootstrap in MODELS.items():
                for trees in TREES:
                    name = f"{dataset}_{size}_{model}_{trees}"
                    if wanted and name not in wanted:
                        continue
                    if header is None:
                        header, table = load(file)
                    sample = table if rows is None or rows >= len(table) else table[np.random.RandomState(0).choice(len(table), rows, replace=False)]
                    path = os.path.join(out_dir, f"{name}.joblib")
                    if not os.path.exists(path):
                        forest = RandomForestClassifier(n_estimators=trees, bootstrap=bootstrap, random_state=0, n_jobs=2)
                        forest.fit(sample[:, :-1], sample[:, -1].astype(np.int64))
                        # n_jobs only spreads the training over cores: random_state fixes every tree, whatever it is.
                        joblib.dump(forest, path)
                    manifest[name] = {
                        "name": name,
                        "model": os.path.basename(path),
                        "dataset": dataset,
                        "rows": int(len(sample)),
                        "trees": trees,
                        "bootstrap": bootstrap,
                        "groups": one_hot_groups(header),
                        "bytes": os.path.getsize(path),
                    }
    # Boosted models on hundreds of thousands of rows (stop 32): public XGBoost files of 455k to
    # 1.2M rows ran out of the 1 GB ceiling. Adult's 48,842 rows drawn with replacement (seeded) to
    # 250,000 and 1,000,000 rows, XGBClassifier's defaults (100 trees of depth 6, hist).
    for size, rows in XGB_SIZES.items():
        name = f"adult_{size}_xgb_100"
        if wanted and name not in wanted:
            continue
        header, table = load("adult.csv")
        sample = table[np.random.RandomState(0).choice(len(table), rows, replace=True)]
        path = os.path.join(out_dir, f"{name}.joblib")
        if not os.path.exists(path):
            import xgboost  # Debian's python3-xgboost 1.7.4; only these models need it

            model = xgboost.XGBClassifier(n_estimators=100, tree_method="hist", random_state=0, n_jobs=2)
            model.fit(sample[:, :-1], sample[:, -1].astype(np.int64))
            joblib.dump(model, path)
        manifest[name] = {
            "name": name,
            "model": os.path.basename(path),
            "dataset": "adult",
            "rows": rows,
            "trees": 100,
            "bootstrap": False,
            "estimator": "XGBClassifier",
            "groups": one_hot_groups(header),
            "bytes": os.path.getsize(path),
        }
    with open(manifest_path, "w") as f:
        json.dump(sorted(manifest.values(), key=lambda m: m["name"]), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
