#!/usr/bin/python3
"""Trains the models of the membership benchmark (test/bench/membership.bench.ts, issue 14).

Data sets: Pima Indians Diabetes (768 rows, ../shared/data), breast cancer (569 rows, as
scikit-learn ships it), COMPAS and Adult (binarised, ../shared/data; a seeded sample of 2,000 rows
each). Per data set the members are a seeded random half, the candidates the whole set. Models:
`RandomForestClassifier(bootstrap=False)` and `RandomForestClassifier()` (scikit-learn's defaults:
100 trees, bootstrap, the seeds stored), random_state 0, trained on the members.

Writes `<name>.joblib` and `<name>.candidates.csv` (features, `label`, `member` 1/0, in a seeded
shuffled order) and `manifest.json` into OUT_DIR. Models already there are kept.

    /usr/bin/python3 test/bench/make-membership-models.py OUT_DIR

Debian's python3-sklearn 1.2.1. Deterministic.
"""
import csv
import json
import os
import sys

import joblib
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture_io  # noqa: E402

DATA = fixture_io.data_dir("pima_diabetes.csv")


def from_csv(name, rows=None):
    with open(os.path.join(DATA, name)) as f:
        table = list(csv.reader(f))
    header, data = table[0][:-1], np.array([[float(v) for v in row] for row in table[1:]])
    if rows is not None:
        data = data[np.random.RandomState(0).choice(len(data), rows, replace=False)]
    return header, data


def breast_cancer():
    data = load_breast_cancer()
    return [str(n).replace(" ", "_") for n in data.feature_names], np.column_stack([data.data, data.target])


DATASETS = {
    "pima": lambda: from_csv("pima_diabetes.csv"),
    "breast_cancer": breast_cancer,
    "compas": lambda: from_csv("compas.csv", 2000),
    "adult": lambda: from_csv("adult.csv", 2000),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = []
    for dataset, load in DATASETS.items():
        header, table = load()
        rng = np.random.RandomState(14)
        member = np.zeros(len(table), dtype=int)
        member[rng.permutation(len(table))[: len(table) // 2]] = 1
        order = rng.permutation(len(table))
        table, member = table[order], member[order]
        X, y = table[:, :-1], table[:, -1].astype(int)
        candidates = f"{dataset}.candidates.csv"
        with open(os.path.join(out, candidates), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header + ["label", "member"])
            for row, label, m in zip(X, y, member):
                w.writerow([repr(float(v)) for v in row] + [int(label), int(m)])
        for bootstrap in (False, True):
            name = f"{dataset}_{'bootstrap' if bootstrap else 'no_bootstrap'}"
            path = os.path.join(out, f"{name}.joblib")
            if not os.path.exists(path):
                model = RandomForestClassifier(bootstrap=bootstrap, random_state=0).fit(X[member == 1], y[member == 1])
                joblib.dump(model, path)
            manifest.append({"name": name, "dataset": dataset, "model": f"{name}.joblib", "candidates": candidates, "bootstrap": bootstrap,
                             "rows": int(len(table)), "members": int(member.sum()), "features": len(header)})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print(f"wrote {len(manifest)} models to {out}")


if __name__ == "__main__":
    main()
